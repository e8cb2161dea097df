"""The docks around the views, one panel each: Library, Ids, Merges, Round trip, Edit vocabulary, Training."""
