"""Agent text as data and the formatting of numbers and times; no Textual, no Rich."""
