"""The client core without I/O: session state machine, requests, statement operations."""
