import math

import torch


def run(sublayer_output, residual, weight, eps):
    batch_size = sublayer_output.shape[0]
    seq_len = sublayer_output.shape[1]
    hidden_size = sublayer_output.shape[2]
    sublayer_output_f = sublayer_output.float()
    residual_f = residual.float()
    weight_f = weight.float()
    t0 = torch.sum(sublayer_output_f * sublayer_output_f, dim=-1, keepdim=True)
    output = (residual_f + ((weight_f * sublayer_output_f) * (1.0 / torch.sqrt((t0 / hidden_size) + eps))).to(torch.bfloat16).float()).to(torch.bfloat16)
    return output
