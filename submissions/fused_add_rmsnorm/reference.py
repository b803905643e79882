import math

import torch


def run(hidden_states, residual, weight):
    batch_size = hidden_states.shape[0]
    hidden_size = 4096
    hidden_states_f = hidden_states.float()
    residual_f = residual.float()
    weight_f = weight.float()
    t0 = (hidden_states_f + residual_f).to(torch.bfloat16).float()
    t1 = torch.sum(t0 * t0, dim=-1, keepdim=True)
    output = (((hidden_states_f + residual_f).to(torch.bfloat16).float() * (1.0 / torch.sqrt((t1 / hidden_size) + 1e-05))) * weight_f).to(torch.bfloat16)
    return output
