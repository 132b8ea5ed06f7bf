#!/usr/bin/env python3
"""Builds OUT/sweep.csv (the schema src/report/sweep_table.h reads) from the run folders that
run.sh trained: a stand-in for the sweep engine's --collect. Usage: collect.py OUT"""
import csv, math, os, sys
out = sys.argv[1]
plan = [l.split() for l in open(os.path.join(out, "plan.txt"))]
cols = ("run,d_k,d_model,n_heads,scale,seed,optim.lr,steps,status,exit_code,steps_done,val_loss,"
        "val_answer_acc,val_token_acc,best_val_loss,best_val_answer_acc,first_step_99,loss0,"
        "logit_std0,saturated_final,softmax_pass_final,gq_norm,gk_norm,wall_s,version").split(",")
def rows(path):
    try:
        with open(path) as f: return list(csv.DictReader(f))
    except FileNotFoundError: return []
w = csv.writer(open(os.path.join(out, "sweep.csv"), "w"), lineterminator="\n")
w.writerow(cols)
for name, dk, scale, seed, lr, steps in plan:
    d = os.path.join(out, "runs", name)
    rcf = os.path.join(d, "exit_code")
    rc = open(rcf).read().strip() if os.path.exists(rcf) else ""
    status = {"0": "ok", "3": "diverged", "4": "guard", "": "missing"}.get(rc, "failed")
    r = dict.fromkeys(cols, "")
    r.update(run=name, d_k=dk, d_model=dk, n_heads="1", scale=scale, seed=seed, steps=steps,
             status=status, exit_code=rc, version="lrsens-script")
    r["optim.lr"] = lr
    loss = rows(os.path.join(d, "loss.csv"))
    val = [x for x in loss if x["val_answer_acc"] != ""]
    if loss: r["steps_done"] = loss[-1]["step"]
    if val:
        r["val_loss"], r["val_answer_acc"], r["val_token_acc"] = (val[-1]["val_loss"],
            val[-1]["val_answer_acc"], val[-1]["val_token_acc"])
        fin = [float(x["val_loss"]) for x in val if math.isfinite(float(x["val_loss"]))]
        r["best_val_loss"] = "%g" % min(fin) if fin else "nan"
        r["best_val_answer_acc"] = "%g" % max(float(x["val_answer_acc"]) for x in val)
        hit = [x["step"] for x in val if float(x["val_answer_acc"]) >= 0.99]
        r["first_step_99"] = hit[0] if hit else ""
        if val[0]["step"] == "0": r["loss0"] = val[0]["val_loss"]
    att = rows(os.path.join(d, "attention.csv"))
    s0 = [float(x["logit_std"]) for x in att if x["step"] == "0" and x["layer"] == "0"]
    if s0: r["logit_std0"] = "%g" % (sum(s0) / len(s0))
    if att:
        last = att[-1]["step"]
        sat = [float(x["saturated_frac"]) for x in att if x["step"] == last and x["saturated_frac"] != ""]
        if sat: r["saturated_final"] = "%g" % (sum(sat) / len(sat))
        if "softmax_pass" in att[0]:
            sp = [float(x["softmax_pass"]) for x in att if x["step"] == last and x["softmax_pass"] != ""]
            if sp: r["softmax_pass_final"] = "%g" % (sum(sp) / len(sp))
    w.writerow([r[c] for c in cols])
