"""The personalised medical RAG agent."""
