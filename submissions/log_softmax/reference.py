import math

import torch


def run(logits):
    batch_size = logits.shape[0]
    hidden_size = logits.shape[1]
    logits_f = logits.float()
    t0 = torch.amax(logits_f, dim=-1, keepdim=True)
    t1 = torch.sum(torch.exp(logits_f - t0), dim=-1, keepdim=True)
    output = (logits_f - (t0 + torch.log(t1))).to(torch.float32)
    return output
