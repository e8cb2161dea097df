"""Building blocks shared by every view: layout pieces for narrow docks, plots, fonts and colours."""
