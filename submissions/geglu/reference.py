import math

import torch


def run(gate, up):
    batch_size = gate.shape[0]
    hidden_size = gate.shape[1]
    gate_f = gate.float()
    up_f = up.float()
    output = (((0.5 * gate_f) * (1.0 + torch.tanh(0.7978845608028654 * (gate_f + (((0.044715 * gate_f) * gate_f) * gate_f))))) * up_f).to(torch.float32)
    return output
