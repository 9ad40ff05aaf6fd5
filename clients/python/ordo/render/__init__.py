"""Plain-text renderers of game views and events for the command line, one module per game id."""
