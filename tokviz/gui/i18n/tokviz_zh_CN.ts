<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>ChatView</name>
    <message>
        <source>The tokenizer&apos;s chat templates (transformers picks &apos;default&apos;, or &apos;tool_use&apos; when the conversation has tools)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Generation prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>End with the header of the assistant&apos;s next turn (add_generation_prompt)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add ▾</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move the message up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move the message down</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a conversation (JSON: a list of messages, or {&quot;messages&quot;: [...], &quot;tools&quot;: [...]})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the conversation as JSON</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The message&apos;s content</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No tokenizer loaded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Template</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Role</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>untitled conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not save the conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The Chat tab needs a tokenizer that ships a chat template (tokenizer_config.json, chat_template.jinja).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a message (Add ▾).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (edited)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;{n:,}&lt;/b&gt; tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1 message</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{n:,} messages</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>template &lt;b&gt;{name}&lt;/b&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>prompt {n:,}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{n:,} characters rendered</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{n:,} tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not JSON yet: {reason} (line {line}); the last valid parts are used.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Content parts must be a JSON list; the last valid parts are used.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Content parts, as JSON (a list of {&quot;type&quot;: ..., ...}).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not open the conversation</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ExportDialog</name>
    <message>
        <source>Export tokenizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{format}   (checking…)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scrub training metadata (corpus paths and the like)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the tokenizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write &lt;b&gt;{name}&lt;/b&gt; as:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot hold this tokenizer: {reason}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not check which formats can hold it: {reason}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Writing {path}…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder for {format}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save as {format}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Restored the work (text and conversation) of a session that did not close normally</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sample text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not open text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No tokens to go to</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Token number in the preview (1–{count}; the whole file&apos;s once it is encoded):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Token number (1–{count}):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Go to token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There is no token {number} now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About tokviz</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open it in the explorer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0}…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every tokenizer trained or edited here has been exported</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No tokenizer to export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Written: {paths}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not load the tokenizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No tokenizer loaded.
Open one with File ▸ Open tokenizer… (Ctrl+O) or drop it here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not open tokenizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (edited)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MergeTables</name>
    <message>
        <source>indexing…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MergesPanel</name>
    <message>
        <source>Used by: indexing…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not index the merges: {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Used by: not indexed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>indexing…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TextEditor</name>
    <message>
        <source>Type or paste text here, or drop a text file…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TrainPanel</name>
    <message>
        <source>HF tokenizers: lowest ids</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>minbpe: first in the text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Which pair is merged when several occur equally often: HF tokenizers&apos; rule or minbpe&apos;s (minbpe&apos;s is slower on a big corpus)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Equal counts</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>window</name>
    <message>
        <source>&amp;Save text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the text to its file (a text with no file: ask where)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save text &amp;as…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the text to a new file (a big file: copy the whole file)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Discard</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
