# fragment: see HACKING.md
