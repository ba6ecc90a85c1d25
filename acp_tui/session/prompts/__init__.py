"""What the person sends: the blocks of a prompt, @files attached as the agent takes them
(attachments.py), and the messages waiting to go out, per session (queue.py)."""
