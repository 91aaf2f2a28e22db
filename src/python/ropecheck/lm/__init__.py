"""ropecheck.lm: the paper's Sections 4-5 on a trained language model, through one seam.

A model under test is one object (``load``: a registered name, a GGUF file, a transformers folder, or
a transformers model already in memory) that says what the analysis needs; the pipeline captures
its queries and keys, proves the capture against the model's own attention and measures it.
Importing this package needs neither torch nor transformers; loading a model does (the pinned PyPI
environment of scripts/python-env has both).
"""
