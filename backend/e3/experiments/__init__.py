"""The paper's evaluation as experiments: one module per table or figure (docs/evaluation.md)."""
