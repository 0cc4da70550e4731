"""options."""
