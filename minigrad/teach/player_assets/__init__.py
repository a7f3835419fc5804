"""What the backward player's page carries besides its data: the script and the style sheet.

Python strings rather than .js/.css files, so that an installed minigrad (a wheel holds only
modules unless told otherwise) has them too.
"""

from minigrad.teach.player_assets.script import SCRIPT
from minigrad.teach.player_assets.style import STYLE

__all__ = ["SCRIPT", "STYLE"]
