"""The Analyses tab and its pages (Fairness, Overlap, Robustness): research questions over several tokenizers."""
