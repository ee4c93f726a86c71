"""Processes: the ``atout`` command, the supervisor, the embedded Redis (and cluster) and the HTTP
server's settings. The top layer."""
