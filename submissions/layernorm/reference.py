import math

import torch


def run(x, weight, bias, eps):
    batch_size = x.shape[0]
    hidden_size = x.shape[1]
    x_f = x.float()
    weight_f = weight.float()
    bias_f = bias.float()
    t0 = torch.sum(x_f, dim=-1, keepdim=True)
    t1 = t0 / hidden_size
    t2 = torch.sum((x_f - t1) * (x_f - t1), dim=-1, keepdim=True)
    output = ((((x_f - t1) * (1.0 / torch.sqrt((t2 / hidden_size) + eps))) * weight_f) + bias_f).to(torch.float32)
    return output
