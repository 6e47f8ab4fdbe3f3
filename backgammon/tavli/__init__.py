"""The games of the Greek and Bulgarian table, and acey-deucey (RULES.md TV to TM).

``board`` holds the value (``TavliBoard``), ``rules`` the five games as data and small
rule functions, ``plays`` their one generator, ``turns`` a turn's stages (gul bara's run,
acey-deucey's 1-2), ``ids`` the project's own position ID, ``record`` the text record.
"""
