"""twin/model.py: scaledot's model in PyTorch, for checking the C trainer against an
independent implementation (twin/load.py) and for training the shipped pair in PyTorch
(twin/train.py). Optional: nothing in the product needs it.

The model is ../shared/reference/README.md's (GPT-2 style, pre-LayerNorm), with the state-dict
names and shapes `./train --export` writes, so `load_state_dict(strict=True)` checks them:
    x = tok_emb[token] + pos_emb[position]
    each block: x = x + attn.proj(attention(ln1(x)));  x = x + mlp.proj(GELU_tanh(mlp.fc(ln2(x))))
    attention: [q k v] = qkv(h); per head (d_k = C / n_heads), with qk_norm q, k <- LayerNorm
    over d_k (weights shared by the heads); scores = scale * q k^T, causal; softmax; P v
    logits = ln_f(x) head.weight^T (no bias, not tied)
GELU is the tanh form (src/model/gelu.c): 0.5 u (1 + tanh(sqrt(2/pi) (u + 0.044715 u^3))).
The scale comes from the config's attention.scale as src/config/keys.c resolves it.

With model.block = llama, the reference README's "LLaMA-style block" instead (docs/llama_block.md),
written from that README, not from the C code:
    x = tok_emb[token]   (no pos_emb)
    each block: x = x + attn.proj(attention(ln1(x)));  x = x + mlp.down(silu(mlp.gate(h)) * mlp.up(h)),
    h = ln2(x); ln1, ln2, ln_f are RMSNorm x / sqrt(mean(x^2) + eps) * weight; no biases anywhere;
    q and k (after the qk-norm, when configured) rotated by RoPE, interleaved pairs (2i, 2i+1) at
    angle t * 10000^(-2i/d_k).

The attention fixes, each as the reference README defines it (docs/attention_fixes.md):
attention.qk_norm = rmsnorm (q, k <- RMSNorm over d_k, gain only); attention.scale = learned
(scores = exp(attn.log_scale[h]) * q k^T, log_scale [n_heads] starting at log(scale_init));
attention.softcap = c (scores <- c tanh(scores / c) after the scale, before the mask);
attention.window = w (query i sees keys i - w + 1 .. i only); attention.v_norm = rmsnorm
(each head's v <- v / sqrt(mean(v^2) + model.ln_eps) over d_k, no gain; Gemma 4); attention.qk_clip = tau (train.py: after each step, a head whose largest logit of the step
exceeded tau gets its q and k rows of attn.qkv times sqrt(tau / largest)).

The W_q and W_k multipliers (init.q_mult, init.k_mult, optim.lr_q_mult, optim.lr_k_mult) touch no
forward: the rows 0..C-1 of attn.qkv (weight and bias) make q, C..2C-1 make k (qkv_thirds), and
train.py multiplies their init and their learning rate.

model.param = mup (src/model/model.h model_init_mup, src/optim/optim.h optim_set_hidden_lr_mult,
after Yang et al. 2022, Tensor Programs V, Table 3, and microsoft/mup's MuReadout and MuAdamW),
with m = model.d_model / model.base_width: logits = ln_f(x) head.weight^T / m (readout_mult);
train.py starts W_q (and its bias) at 0 and head.weight at sqrt(m) times its draw, and trains the
hidden matrices (hidden_params: every block's 2-D tensor) at lr / m."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def parse_ini(text):
    """A resolved scaledot config (a run's config.ini, `./train --print-config`, or an export's
    scaledot.config metadata) as {"section.key": "value"}: ';' starts a comment, values may be
    quoted."""
    out, section = {}, ""
    for raw in text.splitlines():
        line = raw.split(";", 1)[0].strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            continue
        key, _, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        out[section + "." + key.strip()] = value
    return out


def attention_scale(cfg, d_k):
    """attention.scale resolved: sqrt_dk = 1/sqrt(d_k), none = 1, inv_dk = 1/d_k, learned = the
    factor at step 0 (attention.scale_init), C/d_k = C divided by d_k (muP's 8/d_k), or a
    number."""
    s = cfg["attention.scale"]
    if s.endswith("/d_k"):
        return float(s[:-len("/d_k")]) / d_k
    if s == "learned":
        return float(cfg.get("attention.scale_init", "1"))
    if s == "sqrt_dk":
        return 1.0 / math.sqrt(d_k)
    if s == "none":
        return 1.0
    if s == "inv_dk":
        return 1.0 / d_k
    return float(s)


class RMSNorm(nn.Module):
    """x / sqrt(mean(x^2) + eps) * weight over the last dimension, gain only (the LLaMA block)."""

    def __init__(self, n, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight


def rope(x):
    """Rotary embedding of x [..., T, d_k]: pair (2i, 2i+1) at position t rotated by the angle
    t * 10000^(-2i/d_k) (interleaved pairs, as LLaMA's original code and llama2.c). The angles
    are computed in float64 and rounded to x's dtype."""
    T, d = x.shape[-2], x.shape[-1]
    i = torch.arange(d // 2, dtype=torch.float64)
    a = torch.arange(T, dtype=torch.float64)[:, None] * (10000.0 ** (-2.0 * i / d))[None, :]
    cos, sin = a.cos().to(x.dtype), a.sin().to(x.dtype)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x0 * cos - x1 * sin, x0 * sin + x1 * cos), dim=-1).flatten(-2)


class Attention(nn.Module):
    """qk_norm: None, "layernorm" or "rmsnorm"; learned: a factor per head, exp(log_scale[h]),
    replaces the fixed scale; softcap: c > 0 caps the scores. Each forward keeps each head's
    largest score over the batch, before the cap (last_smax, for QK-clip)."""

    def __init__(self, C, n_heads, scale, qk_norm, eps, llama=False, learned=False, softcap=0.0,
                 window=0):
        super().__init__()
        self.n_heads, self.scale, self.llama = n_heads, scale, llama
        self.softcap, self.learned, self.window = softcap, learned, window
        d_k = C // n_heads
        self.qkv = nn.Linear(C, 3 * C, bias=not llama)
        if qk_norm == "layernorm":
            self.q_norm = nn.LayerNorm(d_k, eps=eps)
            self.k_norm = nn.LayerNorm(d_k, eps=eps)
        elif qk_norm == "rmsnorm":
            self.q_norm = RMSNorm(d_k, eps)
            self.k_norm = RMSNorm(d_k, eps)
        if learned:
            self.log_scale = nn.Parameter(torch.full((n_heads,), math.log(scale)))
        self.qk_norm = qk_norm
        self.proj = nn.Linear(C, C, bias=not llama)
        self.last_smax = None
        self.v_norm_eps = None  # attention.v_norm = rmsnorm: its eps (twin_from_config)

    def forward(self, h):
        B, T, C = h.shape
        NH = self.n_heads
        q, k, v = self.qkv(h).split(C, dim=2)
        q, k, v = (t.view(B, T, NH, C // NH).transpose(1, 2) for t in (q, k, v))  # B NH T d_k
        if self.qk_norm:
            q, k = self.q_norm(q), self.k_norm(k)
        if self.v_norm_eps is not None:  # weightless RMSNorm of each head's v over d_k
            v = v * torch.rsqrt(v.pow(2).mean(dim=-1, keepdim=True) + self.v_norm_eps)
        if self.llama:
            q, k = rope(q), rope(k)
        f = self.log_scale.exp().view(1, NH, 1, 1) if self.learned else self.scale
        scores = f * (q @ k.transpose(-2, -1))
        causal = torch.ones(T, T, dtype=torch.bool, device=h.device).tril()
        if self.window > 0:  # query i sees keys i - window + 1 .. i
            causal = causal & ~torch.ones(T, T, dtype=torch.bool, device=h.device).tril(-self.window)
        self.last_smax = scores.detach().masked_fill(~causal, float("-inf")).amax(dim=(0, 2, 3))
        if self.softcap > 0:
            scores = self.softcap * torch.tanh(scores / self.softcap)
        p = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        y = (p @ v).transpose(1, 2).reshape(B, T, C)
        return self.proj(y)

    def qk_clip(self, tau):
        """QK-clip of this layer after an update (src/model/qk_clip.c): every head whose largest
        score of the last forward exceeded tau gets its q and k rows (and biases) of qkv times
        sqrt(tau / largest). Returns the number of heads clipped."""
        C = self.qkv.weight.shape[1]
        hs, n = C // self.n_heads, 0
        with torch.no_grad():
            for h, smax in enumerate(self.last_smax.tolist()):
                if not smax > tau:
                    continue
                f = math.sqrt(tau / smax)
                for r0 in (h * hs, C + h * hs):
                    self.qkv.weight[r0:r0 + hs] *= f
                    if self.qkv.bias is not None:
                        self.qkv.bias[r0:r0 + hs] *= f
                n += 1
        return n


class MLP(nn.Module):
    def __init__(self, C, d_ff):
        super().__init__()
        self.fc = nn.Linear(C, d_ff)
        self.proj = nn.Linear(d_ff, C)

    def forward(self, x):
        return self.proj(F.gelu(self.fc(x), approximate="tanh"))


class SwiGLU(nn.Module):
    """The LLaMA block's MLP: down(silu(gate(x)) * up(x)), no biases."""

    def __init__(self, C, d_ff):
        super().__init__()
        self.gate = nn.Linear(C, d_ff, bias=False)
        self.up = nn.Linear(C, d_ff, bias=False)
        self.down = nn.Linear(d_ff, C, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


class Block(nn.Module):
    def __init__(self, C, n_heads, d_ff, scale, qk_norm, eps, llama=False, learned=False,
                 softcap=0.0, window=0):
        super().__init__()
        norm = (lambda n: RMSNorm(n, eps)) if llama else (lambda n: nn.LayerNorm(n, eps=eps))
        self.ln1 = norm(C)
        self.attn = Attention(C, n_heads, scale, qk_norm, eps, llama, learned, softcap, window)
        self.ln2 = norm(C)
        self.mlp = SwiGLU(C, d_ff) if llama else MLP(C, d_ff)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class Twin(nn.Module):
    def __init__(self, vocab_size, max_seq_len, d_model, n_heads, n_layers, d_ff, scale,
                 qk_norm=None, ln_eps=1e-5, llama=False, learned=False, softcap=0.0, window=0):
        super().__init__()
        self.tok_emb = nn.Parameter(torch.zeros(vocab_size, d_model))
        self.llama = llama
        if not llama:  # the LLaMA block has no position table: RoPE puts position into q.k
            self.pos_emb = nn.Parameter(torch.zeros(max_seq_len, d_model))
        self.blocks = nn.ModuleList(Block(d_model, n_heads, d_ff, scale, qk_norm, ln_eps, llama,
                                          learned, softcap, window)
                                    for _ in range(n_layers))
        self.ln_f = RMSNorm(d_model, ln_eps) if llama else nn.LayerNorm(d_model, eps=ln_eps)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        self.readout_mult = 1.0  # model.param = mup: 1 / width multiplier (twin_from_config)

    def forward(self, tokens):
        T = tokens.shape[1]
        x = self.tok_emb[tokens] if self.llama else self.tok_emb[tokens] + self.pos_emb[:T]
        for b in self.blocks:
            x = b(x)
        logits = self.head(self.ln_f(x))
        return logits if self.readout_mult == 1.0 else logits * self.readout_mult

    def init_fan_in(self, gen):
        """init.scheme = fan_in: weight matrices N(0, 1/fan_in), embeddings N(0, 1), biases 0,
        LayerNorm weight 1 and bias 0 (src/model/model.h); drawn from torch's generator gen."""
        with torch.no_grad():
            for name, p in self.named_parameters():
                if name in ("tok_emb", "pos_emb"):
                    p.normal_(0.0, 1.0, generator=gen)
                elif p.dim() == 2:
                    p.normal_(0.0, 1.0 / math.sqrt(p.shape[1]), generator=gen)
                elif name.endswith("log_scale"):  # every head starts at attention.scale_init
                    p.fill_(math.log(self.blocks[0].attn.scale))
                elif "ln" in name.split(".")[-2] or "norm" in name.split(".")[-2]:
                    p.fill_(1.0 if name.endswith("weight") else 0.0)
                else:
                    p.zero_()


def qkv_thirds(model, q, k):
    """{parameter: multiplier} for every attn.qkv weight and bias: q on the rows making q (the
    first third), k on those making k (the second), 1 on v; a tensor shaped to broadcast over the
    parameter ([3C, 1] for the weight, [3C] for the bias). Empty when q = k = 1."""
    out = {}
    if q == 1 and k == 1:
        return out
    for b in model.blocks:
        for p in (b.attn.qkv.weight, b.attn.qkv.bias):
            if p is None:
                continue
            C = p.shape[0] // 3
            m = torch.ones(p.shape[0], dtype=p.dtype)
            m[:C], m[C:2 * C] = q, k
            out[p] = m.view(-1, *([1] * (p.dim() - 1)))
    return out


def width_mult(cfg):
    """model.param = mup's width multiplier m = model.d_model / model.base_width; 1 for
    standard (and for a config from before model.param existed)."""
    if cfg.get("model.param", "standard") != "mup":
        return 1.0
    return int(cfg["model.d_model"]) / int(cfg["model.base_width"])


def hidden_params(model):
    """The hidden weight matrices whose rate mup divides by m: every block's 2-D tensor (not the
    embeddings, not head.weight, no 1-D tensor), as src/model/model.c's TensorInfo.hidden."""
    return [p for b in model.blocks for p in b.parameters() if p.dim() == 2]


def twin_from_config(cfg, vocab_size, max_seq_len):
    """The model a resolved scaledot config describes, for a task of vocab_size tokens. A config
    from before model.block existed is a gpt2 one. model.d_ff = 0: 4 * d_model, or for llama
    floor(8 * d_model / 3) rounded up to a multiple of 8 (docs/llama_block.md)."""
    C, NH = int(cfg["model.d_model"]), int(cfg["model.n_heads"])
    llama = cfg.get("model.block", "gpt2") == "llama"
    d_ff = int(cfg["model.d_ff"]) or ((8 * C // 3 + 7) // 8 * 8 if llama else 4 * C)
    if int(cfg["model.max_seq_len"]):
        max_seq_len = int(cfg["model.max_seq_len"])
    model = Twin(vocab_size, max_seq_len, C, NH, int(cfg["model.n_layers"]), d_ff,
                 attention_scale(cfg, C // NH),
                 None if cfg["attention.qk_norm"] == "none" else cfg["attention.qk_norm"],
                 float(cfg["model.ln_eps"]), llama, cfg["attention.scale"] == "learned",
                 float(cfg.get("attention.softcap", "0")), int(cfg.get("attention.window", "0")))
    model.readout_mult = 1.0 / width_mult(cfg)
    if cfg.get("attention.v_norm", "none") == "rmsnorm":
        for b in model.blocks:
            b.attn.v_norm_eps = float(cfg["model.ln_eps"])
    return model


def evaluate(model, tokens, targets, mask, batch=64):
    """Validation loss (masked mean cross-entropy, nats), token accuracy (answer tokens whose
    argmax is the target) and answer accuracy (examples whose every answer token is right), as
    src/train/evaluate.c defines them."""
    loss_sum = mask_sum = tok_right = tok_total = ans_right = 0.0
    with torch.no_grad():
        for s in range(0, tokens.shape[0], batch):
            tok, tgt, m = tokens[s:s + batch], targets[s:s + batch], mask[s:s + batch]
            logits = model(tok)
            dt = logits.dtype
            nll = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1).clamp(min=0),
                                  reduction="none").view_as(m.to(dt))
            loss_sum += float((nll * m.to(dt)).sum())
            mask_sum += float(m.sum())
            right = (logits.argmax(dim=-1) == tgt) | (m == 0)
            on = m != 0
            tok_right += float((right & on).sum())
            tok_total += float(on.sum())
            ans_right += float(right.all(dim=1).sum())
    return loss_sum / mask_sum, tok_right / tok_total, ans_right / tokens.shape[0]
