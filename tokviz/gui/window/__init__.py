"""The main window's parts, one module per responsibility; `main_window.MainWindow` assembles them.

* `main_window`: the window, assembling the parts below, and what it shows (encodings, the tabs,
  colours, theme, zoom, find);
* `tokenizers`, `text_loading`, `unsaved_work`, `dialogs`, `headers`: parts of the window's class
  (mixins): opening tokenizers; opening, setting and saving the text; tokenizers trained or edited
  here, exporting and quitting; the dialogs behind the menus; the title and the pane headers;
* `editor`: the text editor and the mapping between Python character indices and Qt positions;
* `find_bar`: the inline find bar under the editor;
* `docks`: every dock and its panel;
* `actions`: the menus, the toolbar and their actions;
* `status`: the status bar (token figures, big-file progress, font warnings);
* `big_file`: big-file mode (a preview in the editor, the whole file encoded in the background);
* `text_document`: the editor's text: its file, modified or not, Save / Save as, asking before a replace;
* `session`: the last session, tokenizers not yet exported, and the question on quit;
* `idle`: collecting long-lived garbage once the app is quiet;
* `roundtrip_marks`: the Round trip dock's findings underlined in the token view;
* `files`: what a dropped or opened file is; `open_tokenizers`: the tokenizers open, shared by file;
* `about`, `export_dialog`: the About box and File ▸ Export tokenizer;
* `language`: View ▸ Language.
"""
