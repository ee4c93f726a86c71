"""Redis: clients, keys, records and their scripts, the game and bot-account store, retention and
the stream fan-out. Above ``service.base``; knows nothing of HTTP, RQ or the rules engine's moves."""
