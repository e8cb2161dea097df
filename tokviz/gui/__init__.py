"""The desktop app (PySide6).  The only package of tokviz that imports Qt.

Where things live:

* `app` runs the app; `screenshot` renders any view to a PNG; `settings` is what the app remembers;
  `platform` says whether a window can open here; `i18n` loads the translations;
* `window/`: the explorer window (`window.main_window.MainWindow`) and its parts: editor, menus, docks,
  status bar, session, the file dialogs;
* `views/`: the token view and the tabs beside it (Chat, Compare, Statistics, Vocabulary, traces);
* `panels/`: the docks' panels (Library, Ids, Merges, Round trip, Edit vocabulary, Training);
* `analyses/`: the Analyses tab (Fairness, Overlap, Robustness);
* `widgets/`: layout pieces, plots, fonts and colours shared by all of them;
* `work/`: everything that runs off the UI thread, with progress and Cancel.
"""
