"""The study's data for analysis: the files (:mod:`files`), their tables and rows (:mod:`rows`,
:mod:`study_part`, :mod:`self_report`, :mod:`withdrawn`), the codebook written beside them
(:mod:`codebook`), pseudonyms for free texts (:mod:`pseudonyms`), the second process that writes the
largest file (:mod:`worker`) and the unblinded allocation list (:mod:`allocation`)."""
