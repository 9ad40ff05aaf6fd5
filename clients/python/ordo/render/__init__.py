"""Plain-text rendering of game views and events for the command-line demo, one module per game."""
