"""The seed studies: the papers' reported figures as data, and what each reproduction checks."""
