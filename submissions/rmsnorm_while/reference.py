import math

import torch


def run(x, w):
    rows = x.shape[0]
    cols = x.shape[1]
    x_f = x.float()
    w_f = w.float()
    t0 = torch.sum(x_f * x_f, dim=-1, keepdim=True)
    y = ((x_f * (1.0 / torch.sqrt((t0 / cols) + 1e-06))) * w_f).to(torch.float32)
    return y
