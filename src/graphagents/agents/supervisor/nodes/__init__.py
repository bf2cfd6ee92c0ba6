"""The supervisor's nodes, one module per node, and the routers between them."""
