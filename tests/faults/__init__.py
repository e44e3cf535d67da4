"""Adversarial test tools for issue 9, below the driver's public API.

``proxy.FaultProxy`` sits on loopback between a client and a server and
breaks one byte stream at a chosen offset; ``hostile.HostileServer`` logs a
client in and then answers with crafted bytes; ``hostile.Impostor`` is a TLS
listener with a certificate nobody should trust.  They speak bytes only, so
the same scenarios drive the blocking driver and the asyncio one.
"""
