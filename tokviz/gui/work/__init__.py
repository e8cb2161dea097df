"""Work off the UI thread: workers, long jobs with progress and Cancel, where a run goes, and the GIL gate."""
