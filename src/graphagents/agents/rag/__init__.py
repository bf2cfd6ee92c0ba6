"""The rag agent: personalised medical-information RAG (design note rag-context-engineering-state.md).

A per-user health profile from the conversation (6 slots), hybrid retrieval (BM25 on Kiwi morphemes +
the multilingual encoder, RRF k = 60) over an ingested corpus, a token-budgeted context, an answer
with numbered citations (extractive offline), a self-refine loop with a judge, and a semantic response
cache that only serves an answer to the same user asking about the same slots.
"""
