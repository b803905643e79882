import math

import torch


def run(x):
    batch_size = x.shape[0]
    hidden_size = x.shape[1] // 2
    x_f = x.float()
    output = ((x_f[..., :hidden_size] / (1.0 + torch.exp(-x_f[..., :hidden_size]))) * x_f[..., hidden_size:hidden_size + hidden_size]).to(torch.bfloat16)
    return output
