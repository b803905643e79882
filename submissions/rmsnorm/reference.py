import math

import torch


def run(hidden_states, weight):
    batch_size = hidden_states.shape[0]
    hidden_size = hidden_states.shape[1]
    hidden_states_f = hidden_states.float()
    weight_f = weight.float()
    t0 = torch.sum(hidden_states_f * hidden_states_f, dim=-1, keepdim=True)
    output = ((hidden_states_f * (1.0 / torch.sqrt((t0 / hidden_size) + 1e-05))) * weight_f).to(torch.bfloat16)
    return output
