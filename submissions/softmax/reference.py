import math

import torch


def run(input):
    batch_size = input.shape[0]
    hidden_size = input.shape[1]
    input_f = input.float()
    t0 = torch.amax(input_f, dim=-1, keepdim=True)
    t1 = torch.sum(torch.exp(input_f - t0), dim=-1, keepdim=True)
    output = (torch.exp(input_f - t0) / t1).to(torch.float32)
    return output
