"""Checks two --mixprec-memory-report JSON files of one model, FP32 then AMP:
AMP keeps fewer activation bytes, and the same parameters and gradients."""
import json
import sys

fp32, amp = (json.load(open(path))["steps"][0] for path in sys.argv[1:3])
assert amp["saved_activations"]["bytes"] < fp32["saved_activations"]["bytes"], (
    amp["saved_activations"], fp32["saved_activations"])
assert amp["parameters"] == fp32["parameters"], (
    amp["parameters"], fp32["parameters"])
assert amp["gradients"] == fp32["gradients"], (
    amp["gradients"], fp32["gradients"])
