<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
  <context>
    <name>About</name>
    <message>
      <source>in use</source>
      <translation>已启用</translation>
    </message>
    <message>
      <source>not in use ({reason})</source>
      <translation>未启用（{reason}）</translation>
    </message>
    <message>
      <source>native encoder</source>
      <translation>原生编码器</translation>
    </message>
    <message>
      <source>native BPE trainer</source>
      <translation>原生 BPE 训练器</translation>
    </message>
    <message>
      <source>See exactly how a tokenizer cuts text: load or train one, paste text or open a file, and look at every token, id and byte.</source>
      <translation>看清分词器如何切分文本：加载或训练一个分词器，粘贴文本或打开文件，查看每个词元、ID 和字节。</translation>
    </message>
  </context>
  <context>
    <name>Actions</name>
    <message>
      <source>&amp;Help</source>
      <translation>帮助(&amp;H)</translation>
    </message>
    <message>
      <source>&amp;About tokviz</source>
      <translation>关于 tokviz(&amp;A)</translation>
    </message>
    <message>
      <source>Main</source>
      <translation>主工具栏</translation>
    </message>
    <message>
      <source>Open tokenizer</source>
      <translation>打开分词器</translation>
    </message>
    <message>
      <source>Open text</source>
      <translation>打开文本</translation>
    </message>
    <message>
      <source>Max length</source>
      <translation>最大长度</translation>
    </message>
    <message>
      <source>Add specials</source>
      <translation>添加特殊词元</translation>
    </message>
    <message>
      <source>&amp;File</source>
      <translation>文件(&amp;F)</translation>
    </message>
    <message>
      <source>Open &amp;tokenizer…</source>
      <translation>打开分词器(&amp;T)…</translation>
    </message>
    <message>
      <source>Open tokenizer &amp;folder…</source>
      <translation>打开分词器文件夹(&amp;F)…</translation>
    </message>
    <message>
      <source>Open te&amp;xt…</source>
      <translation>打开文本(&amp;X)…</translation>
    </message>
    <message>
      <source>&amp;Save text</source>
      <translation>保存文本(&amp;S)</translation>
    </message>
    <message>
      <source>Write the text to its file (a text with no file: ask where)</source>
      <translation>将文本写入其文件（文本没有文件时询问保存位置）</translation>
    </message>
    <message>
      <source>Save text &amp;as…</source>
      <translation>文本另存为(&amp;A)…</translation>
    </message>
    <message>
      <source>Write the text to a new file (a big file: copy the whole file)</source>
      <translation>将文本写入新文件（大文件：复制整个文件）</translation>
    </message>
    <message>
      <source>Open &amp;recent</source>
      <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
      <source>&amp;Unsaved tokenizers</source>
      <translation>未导出的分词器(&amp;U)</translation>
    </message>
    <message>
      <source>&amp;Discard</source>
      <translation>丢弃(&amp;D)</translation>
    </message>
    <message>
      <source>&amp;Export tokenizer…</source>
      <translation>导出分词器(&amp;E)…</translation>
    </message>
    <message>
      <source>&amp;Quit</source>
      <translation>退出(&amp;Q)</translation>
    </message>
    <message>
      <source>&amp;Edit</source>
      <translation>编辑(&amp;E)</translation>
    </message>
    <message>
      <source>&amp;Undo</source>
      <translation>撤销(&amp;U)</translation>
    </message>
    <message>
      <source>&amp;Redo</source>
      <translation>重做(&amp;R)</translation>
    </message>
    <message>
      <source>Cu&amp;t</source>
      <translation>剪切(&amp;T)</translation>
    </message>
    <message>
      <source>&amp;Copy</source>
      <translation>复制(&amp;C)</translation>
    </message>
    <message>
      <source>&amp;Paste</source>
      <translation>粘贴(&amp;P)</translation>
    </message>
    <message>
      <source>Select &amp;all</source>
      <translation>全选(&amp;A)</translation>
    </message>
    <message>
      <source>&amp;Find in text…</source>
      <translation>在文本中查找(&amp;F)…</translation>
    </message>
    <message>
      <source>Find &amp;next</source>
      <translation>查找下一个(&amp;N)</translation>
    </message>
    <message>
      <source>Find pre&amp;vious</source>
      <translation>查找上一个(&amp;V)</translation>
    </message>
    <message>
      <source>&amp;Go to token…</source>
      <translation>转到词元(&amp;G)…</translation>
    </message>
    <message>
      <source>&amp;View</source>
      <translation>视图(&amp;V)</translation>
    </message>
    <message>
      <source>&amp;Library</source>
      <translation>分词器库(&amp;L)</translation>
    </message>
    <message>
      <source>&amp;Ids and decoding</source>
      <translation>ID 与解码(&amp;I)</translation>
    </message>
    <message>
      <source>&amp;Merges, traces and health</source>
      <translation>合并、切分过程与健康度(&amp;M)</translation>
    </message>
    <message>
      <source>&amp;Vocabulary</source>
      <translation>词表(&amp;V)</translation>
    </message>
    <message>
      <source>&amp;Statistics and comparison</source>
      <translation>统计与对比(&amp;S)</translation>
    </message>
    <message>
      <source>&amp;Training</source>
      <translation>训练(&amp;T)</translation>
    </message>
    <message>
      <source>&amp;Edit vocabulary</source>
      <translation>编辑词表(&amp;E)</translation>
    </message>
    <message>
      <source>Round tri&amp;p (normalizer, decode)</source>
      <translation>往返（规范化器、解码）(&amp;P)</translation>
    </message>
    <message>
      <source>&amp;Compare tokenizers</source>
      <translation>对比分词器(&amp;C)</translation>
    </message>
    <message>
      <source>Colour tokens &amp;by</source>
      <translation>词元着色方式(&amp;B)</translation>
    </message>
    <message>
      <source>&amp;Whitespace markers</source>
      <translation>空白标记(&amp;W)</translation>
    </message>
    <message>
      <source>Draw spaces, tabs and newlines in tokens as · → ↵</source>
      <translation>将词元中的空格、制表符和换行显示为 · → ↵</translation>
    </message>
    <message>
      <source>Colour le&amp;gend</source>
      <translation>颜色图例(&amp;G)</translation>
    </message>
    <message>
      <source>What the colours and markers of the token view mean</source>
      <translation>词元视图中颜色和标记的含义</translation>
    </message>
    <message>
      <source>T&amp;heme</source>
      <translation>主题(&amp;H)</translation>
    </message>
    <message>
      <source>Follow the &amp;system</source>
      <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
      <source>&amp;Light</source>
      <translation>浅色(&amp;L)</translation>
    </message>
    <message>
      <source>&amp;Dark</source>
      <translation>深色(&amp;D)</translation>
    </message>
    <message>
      <source>Zoom i&amp;n</source>
      <translation>放大(&amp;N)</translation>
    </message>
    <message>
      <source>Zoom &amp;out</source>
      <translation>缩小(&amp;O)</translation>
    </message>
    <message>
      <source>&amp;Reset zoom</source>
      <translation>重置缩放(&amp;R)</translation>
    </message>
    <message>
      <source>E&amp;ncode</source>
      <translation>编码(&amp;N)</translation>
    </message>
    <message>
      <source>Add &amp;special tokens (post-processor)</source>
      <translation>添加特殊词元（后处理器）(&amp;S)</translation>
    </message>
    <message>
      <source>Encode with add_special_tokens=True, e.g. BERT's [CLS] … [SEP]</source>
      <translation>以 add_special_tokens=True 编码，例如 BERT 的 [CLS] … [SEP]</translation>
    </message>
    <message>
      <source>Special-token s&amp;trings in the text are special tokens</source>
      <translation>文本中的特殊词元字符串视为特殊词元(&amp;T)</translation>
    </message>
    <message>
      <source>On: '&lt;|endoftext|&gt;' typed in the text becomes the special token; off: it is cut as plain text.
Each format has its default (on for HF tokenizers, off for tiktoken and sentencepiece).</source>
      <translation>开启：文本中输入的“&lt;|endoftext|&gt;”成为特殊词元；关闭：按普通文本切分。
各格式有其默认值（HF 分词器默认开启，tiktoken 和 sentencepiece 默认关闭）。</translation>
    </message>
    <message>
      <source>&amp;Max length…</source>
      <translation>最大长度(&amp;M)…</translation>
    </message>
    <message>
      <source>Show where a model's max length cuts the tokens</source>
      <translation>标出模型最大长度在词元中的截断位置</translation>
    </message>
  </context>
  <context>
    <name>AnalysesView</name>
    <message>
      <source>Add tokenizer…</source>
      <translation>添加分词器…</translation>
    </message>
    <message>
      <source>Add a tokenizer to the set the analyses (and the Compare tab) use</source>
      <translation>向分析（及对比标签页）所用的分词器集合中添加一个分词器</translation>
    </message>
    <message>
      <source>No tokenizer yet: open one, or add tokenizers to compare.</source>
      <translation>尚无分词器：请打开一个，或添加要对比的分词器。</translation>
    </message>
    <message>
      <source>, </source>
      <translation>、</translation>
    </message>
    <message>
      <source>(the Compare tab's set)</source>
      <translation>（对比标签页的集合）</translation>
    </message>
    <message>
      <source>(the explorer's tokenizer; add more to analyse several)</source>
      <translation>（浏览器中的分词器；添加更多即可同时分析多个）</translation>
    </message>
    <message>
      <source>Analysing {tokenizers} {where}</source>
      <translation>正在分析 {tokenizers} {where}</translation>
    </message>
  </context>
  <context>
    <name>BackgroundJob</name>
    <message>
      <source>Cancel</source>
      <translation>取消</translation>
    </message>
    <message>
      <source>Cancelled.</source>
      <translation>已取消。</translation>
    </message>
  </context>
  <context>
    <name>BigFileMode</name>
    <message>
      <source>Could not open text</source>
      <translation>无法打开文本</translation>
    </message>
    <message>
      <source>Encoding {name} ({size} MB)…</source>
      <translation>正在编码 {name}（{size} MB）…</translation>
    </message>
    <message>
      <source>encoding the whole file…</source>
      <translation>正在编码整个文件…</translation>
    </message>
    <message>
      <source>whole file: {state}</source>
      <translation>整个文件：{state}</translation>
    </message>
    <message>
      <source>{tokens} in the preview</source>
      <translation>预览中 {tokens}</translation>
    </message>
    <message>
      <source>first {size} KB</source>
      <translation>前 {size} KB</translation>
    </message>
    <message>
      <source>characters {first}–{last}</source>
      <translation>第 {first}–{last} 个字符</translation>
    </message>
    <message>
      <source>{size} MB, all tokens shown</source>
      <translation>{size} MB，已显示全部词元</translation>
    </message>
    <message>
      <source>{size} MB</source>
      <translation>{size} MB</translation>
    </message>
    <message>
      <source>editor: {held}, read-only</source>
      <translation>编辑器：{held}，只读</translation>
    </message>
    <message>
      <source>Text</source>
      <translation>文本</translation>
    </message>
    <message>
      <source>A big file: the editor holds its start; the token view shows every token of the whole file once it is encoded (or those encoded before a cancel).</source>
      <translation>大文件：编辑器只显示文件开头；整个文件编码完成后，词元视图显示其全部词元（取消时显示取消前已编码的词元）。</translation>
    </message>
    <message>
      <source>cancelled at {percent}%</source>
      <translation>已在 {percent}% 处取消</translation>
    </message>
    <message>
      <source>done</source>
      <translation>已完成</translation>
    </message>
    <message>
      <source>failed</source>
      <translation>失败</translation>
    </message>
    <message>
      <source>encoding</source>
      <translation>编码中</translation>
    </message>
    <message>
      <source>not encoded</source>
      <translation>未编码</translation>
    </message>
    <message>
      <source>{tokens} in the whole file</source>
      <translation>整个文件共 {tokens}</translation>
    </message>
    <message>
      <source>{tokens} in the first {size} MB ({state})</source>
      <translation>前 {size} MB 中 {tokens}（{state}）</translation>
    </message>
    <message>
      <source>{chars} chars/token · {bytes} bytes/token</source>
      <translation>每词元 {chars} 字符 · 每词元 {bytes} 字节</translation>
    </message>
    <message>
      <source>encoded in {seconds} s ({speed} MB/s)</source>
      <translation>编码耗时 {seconds} 秒（{speed} MB/s）</translation>
    </message>
    <message>
      <source>Encoding {name}: {done} of {total} MB…</source>
      <translation>正在编码 {name}：{done} / {total} MB…</translation>
    </message>
    <message>
      <source>Could not encode the whole file</source>
      <translation>无法编码整个文件</translation>
    </message>
  </context>
  <context>
    <name>ChatView</name>
    <message>
      <source>Conversations (*.json);;All files (*)</source>
      <translation>对话 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
      <source>system</source>
      <translation>系统</translation>
    </message>
    <message>
      <source>user</source>
      <translation>用户</translation>
    </message>
    <message>
      <source>assistant</source>
      <translation>助手</translation>
    </message>
    <message>
      <source>tool</source>
      <translation>工具</translation>
    </message>
    <message>
      <source>developer</source>
      <translation>开发者</translation>
    </message>
    <message>
      <source>the conversation holds a lone surrogate, which UTF-8 cannot hold; remove it to save</source>
      <translation>对话中含有孤立的代理码元，UTF-8 无法表示；请删除后再保存</translation>
    </message>
    <message>
      <source>cannot write: {reason}</source>
      <translation>无法写入：{reason}</translation>
    </message>
    <message>
      <source>The tokenizer's chat templates (transformers picks 'default', or 'tool_use' when the conversation has tools)</source>
      <translation>分词器的对话模板（transformers 默认选用“default”，对话含工具时选用“tool_use”）</translation>
    </message>
    <message>
      <source>Generation prompt</source>
      <translation>生成提示</translation>
    </message>
    <message>
      <source>End with the header of the assistant's next turn (add_generation_prompt)</source>
      <translation>以助手下一轮的开头结尾（add_generation_prompt）</translation>
    </message>
    <message>
      <source>Add ▾</source>
      <translation>添加 ▾</translation>
    </message>
    <message>
      <source>Delete</source>
      <translation>删除</translation>
    </message>
    <message>
      <source>Move the message up</source>
      <translation>上移消息</translation>
    </message>
    <message>
      <source>Move the message down</source>
      <translation>下移消息</translation>
    </message>
    <message>
      <source>Open…</source>
      <translation>打开…</translation>
    </message>
    <message>
      <source>Open a conversation (JSON: a list of messages, or {"messages": [...], "tools": [...]})</source>
      <translation>打开对话（JSON：消息列表，或 {"messages": [...], "tools": [...]}）</translation>
    </message>
    <message>
      <source>Save…</source>
      <translation>保存…</translation>
    </message>
    <message>
      <source>Save the conversation as JSON</source>
      <translation>将对话保存为 JSON</translation>
    </message>
    <message>
      <source>The message's content</source>
      <translation>消息内容</translation>
    </message>
    <message>
      <source>No tokenizer loaded.</source>
      <translation>未加载分词器。</translation>
    </message>
    <message>
      <source>Cancel</source>
      <translation>取消</translation>
    </message>
    <message>
      <source>Template</source>
      <translation>模板</translation>
    </message>
    <message>
      <source>Role</source>
      <translation>角色</translation>
    </message>
    <message>
      <source>untitled conversation</source>
      <translation>未命名对话</translation>
    </message>
    <message>
      <source>Save conversation</source>
      <translation>保存对话</translation>
    </message>
    <message>
      <source>Could not save the conversation</source>
      <translation>无法保存对话</translation>
    </message>
    <message>
      <source>The Chat tab needs a tokenizer that ships a chat template (tokenizer_config.json, chat_template.jinja).</source>
      <translation>对话页需要带有对话模板的分词器（tokenizer_config.json、chat_template.jinja）。</translation>
    </message>
    <message>
      <source>Add a message (Add ▾).</source>
      <translation>请添加一条消息（添加 ▾）。</translation>
    </message>
    <message>
      <source>cancelled</source>
      <translation>已取消</translation>
    </message>
    <message>
      <source> (edited)</source>
      <translation>（已编辑）</translation>
    </message>
    <message>
      <source>not rendered</source>
      <translation>未渲染</translation>
    </message>
    <message>
      <source>&lt;b&gt;{n:,}&lt;/b&gt; tokens</source>
      <translation>&lt;b&gt;{n:,}&lt;/b&gt; 个词元</translation>
    </message>
    <message>
      <source>1 message</source>
      <translation>1 条消息</translation>
    </message>
    <message>
      <source>{n:,} messages</source>
      <translation>{n:,} 条消息</translation>
    </message>
    <message>
      <source>template &lt;b&gt;{name}&lt;/b&gt;</source>
      <translation>模板 &lt;b&gt;{name}&lt;/b&gt;</translation>
    </message>
    <message>
      <source>prompt {n:,}</source>
      <translation>提示 {n:,}</translation>
    </message>
    <message>
      <source>{n:,} characters rendered</source>
      <translation>渲染出 {n:,} 个字符</translation>
    </message>
    <message>
      <source>{n:,} tokens</source>
      <translation>{n:,} 个词元</translation>
    </message>
    <message>
      <source>Not JSON yet: {reason} (line {line}); the last valid parts are used.</source>
      <translation>还不是有效的 JSON：{reason}（第 {line} 行）；沿用上次有效的内容片段。</translation>
    </message>
    <message>
      <source>Content parts must be a JSON list; the last valid parts are used.</source>
      <translation>内容片段必须是 JSON 列表；沿用上次有效的内容片段。</translation>
    </message>
    <message>
      <source>Content parts, as JSON (a list of {"type": ..., ...}).</source>
      <translation>内容片段，以 JSON 表示（{"type": ..., ...} 的列表）。</translation>
    </message>
    <message>
      <source>Open conversation</source>
      <translation>打开对话</translation>
    </message>
    <message>
      <source>Could not open the conversation</source>
      <translation>无法打开对话</translation>
    </message>
  </context>
  <context>
    <name>ColorLegend</name>
    <message>
      <source>· space  → tab  ↵ newline  e5 a byte of a character cut between tokens</source>
      <translation>· 空格  → 制表符  ↵ 换行  e5 被词元切开的字符中的一个字节</translation>
    </message>
    <message>
      <source>{mode}:</source>
      <translation>{mode}：</translation>
    </message>
  </context>
  <context>
    <name>ColorMode</name>
    <message>
      <source>Token (alternating)</source>
      <translation>词元（交替着色）</translation>
    </message>
    <message>
      <source>Id</source>
      <translation>ID</translation>
    </message>
    <message>
      <source>Length in bytes</source>
      <translation>字节长度</translation>
    </message>
    <message>
      <source>Vocabulary rank</source>
      <translation>词表序号</translation>
    </message>
    <message>
      <source>Partial UTF-8</source>
      <translation>不完整的 UTF-8</translation>
    </message>
    <message>
      <source>Special and unknown</source>
      <translation>特殊词元与未知词元</translation>
    </message>
    <message>
      <source>special token</source>
      <translation>特殊词元</translation>
    </message>
    <message>
      <source>a token</source>
      <translation>一个词元</translation>
    </message>
    <message>
      <source>the next token</source>
      <translation>下一个词元</translation>
    </message>
    <message>
      <source>each id its own colour</source>
      <translation>每个 ID 一种颜色</translation>
    </message>
    <message>
      <source>id + 1</source>
      <translation>ID + 1</translation>
    </message>
    <message>
      <source>1 byte</source>
      <translation>1 字节</translation>
    </message>
    <message>
      <source>{n} bytes</source>
      <translation>{n} 字节</translation>
    </message>
    <message>
      <source>{n}+ bytes</source>
      <translation>{n} 字节及以上</translation>
    </message>
    <message>
      <source>first in the vocabulary</source>
      <translation>词表中最靠前</translation>
    </message>
    <message>
      <source>middle</source>
      <translation>中间</translation>
    </message>
    <message>
      <source>last</source>
      <translation>最靠后</translation>
    </message>
    <message>
      <source>part of a character (partial UTF-8)</source>
      <translation>字符的一部分（不完整的 UTF-8）</translation>
    </message>
    <message>
      <source>whole characters</source>
      <translation>完整字符</translation>
    </message>
    <message>
      <source>unknown token</source>
      <translation>未知词元</translation>
    </message>
    <message>
      <source>other tokens</source>
      <translation>其他词元</translation>
    </message>
  </context>
  <context>
    <name>ComparePane</name>
    <message>
      <source>Move left</source>
      <translation>左移</translation>
    </message>
    <message>
      <source>Move right</source>
      <translation>右移</translation>
    </message>
    <message>
      <source>Remove</source>
      <translation>移除</translation>
    </message>
    <message>
      <source>Loading…</source>
      <translation>正在加载…</translation>
    </message>
    <message>
      <source>loading…</source>
      <translation>正在加载…</translation>
    </message>
    <message>
      <source>1 token</source>
      <translation>1 个词元</translation>
    </message>
    <message>
      <source>{n:,} tokens</source>
      <translation>{n:,} 个词元</translation>
    </message>
    <message>
      <source>{ratio:.2f} chars/token</source>
      <translation>每词元 {ratio:.2f} 字符</translation>
    </message>
    <message>
      <source>{ms:,.0f} ms</source>
      <translation>{ms:,.0f} 毫秒</translation>
    </message>
    <message>
      <source>failed</source>
      <translation>失败</translation>
    </message>
  </context>
  <context>
    <name>CompareView</name>
    <message>
      <source>tokenizer</source>
      <translation>分词器</translation>
    </message>
    <message>
      <source>vocab size</source>
      <translation>词表大小</translation>
    </message>
    <message>
      <source>tokens</source>
      <translation>词元数</translation>
    </message>
    <message>
      <source>bytes/token</source>
      <translation>每词元字节数</translation>
    </message>
    <message>
      <source>chars/token</source>
      <translation>每词元字符数</translation>
    </message>
    <message>
      <source>unknown</source>
      <translation>未知词元</translation>
    </message>
    <message>
      <source>byte fallback</source>
      <translation>字节回退</translation>
    </message>
    <message>
      <source>time (ms)</source>
      <translation>耗时（毫秒）</translation>
    </message>
    <message>
      <source>Add tokenizers to compare (Add…, or drop tokenizer files or Library entries here).</source>
      <translation>添加要对比的分词器（点“添加分词器…”，或把分词器文件、分词器库中的条目拖放到这里）。</translation>
    </message>
    <message>
      <source>Add tokenizer…</source>
      <translation>添加分词器…</translation>
    </message>
    <message>
      <source>Words one tokenizer splits into the most pieces</source>
      <translation>某个分词器切得最碎的词</translation>
    </message>
    <message>
      <source>Copy CSV</source>
      <translation>复制 CSV</translation>
    </message>
    <message>
      <source>Copy Markdown</source>
      <translation>复制 Markdown</translation>
    </message>
    <message>
      <source>Save PNG…</source>
      <translation>保存 PNG…</translation>
    </message>
    <message>
      <source>At most {n} tokenizers side by side.</source>
      <translation>最多并排对比 {n} 个分词器。</translation>
    </message>
    <message>
      <source>Could not load {path}:
{error}</source>
      <translation>无法加载 {path}：
{error}</translation>
    </message>
    <message>
      <source>Encoding…</source>
      <translation>正在编码…</translation>
    </message>
    <message>
      <source>Add another tokenizer to compare.</source>
      <translation>请再添加一个分词器进行对比。</translation>
    </message>
    <message>
      <source>{share:.1%} of the {chars:,} characters are in tokens all {n} tokenizers cut the same way; the cuts differ at {places:,} places (red marks).</source>
      <translation>在 {chars:,} 个字符中，{share:.1%} 位于全部 {n} 个分词器切分相同的词元里；切分在 {places:,} 处不同（红色标记）。</translation>
    </message>
    <message>
      <source>Could not compare: {error}</source>
      <translation>无法对比：{error}</translation>
    </message>
    <message>
      <source>Add a tokenizer to compare</source>
      <translation>添加要对比的分词器</translation>
    </message>
    <message>
      <source>Save the panes as PNG</source>
      <translation>将各窗格保存为 PNG</translation>
    </message>
    <message>
      <source>PNG images (*.png)</source>
      <translation>PNG 图像 (*.png)</translation>
    </message>
  </context>
  <context>
    <name>Docks</name>
    <message>
      <source>Library</source>
      <translation>分词器库</translation>
    </message>
    <message>
      <source>Ids</source>
      <translation>ID</translation>
    </message>
    <message>
      <source>Merges</source>
      <translation>合并</translation>
    </message>
    <message>
      <source>Vocabulary</source>
      <translation>词表</translation>
    </message>
    <message>
      <source>Statistics</source>
      <translation>统计</translation>
    </message>
    <message>
      <source>Training</source>
      <translation>训练</translation>
    </message>
    <message>
      <source>Edit vocabulary</source>
      <translation>编辑词表</translation>
    </message>
    <message>
      <source>Round trip</source>
      <translation>往返</translation>
    </message>
  </context>
  <context>
    <name>EditPanel</name>
    <message>
      <source>Add special tokens</source>
      <translation>添加特殊词元</translation>
    </message>
    <message>
      <source>Add reserved tokens</source>
      <translation>添加保留词元</translation>
    </message>
    <message>
      <source>Pad to a multiple of</source>
      <translation>补齐到倍数</translation>
    </message>
    <message>
      <source>Add merges (BPE)</source>
      <translation>添加合并规则（BPE）</translation>
    </message>
    <message>
      <source>Add tokens matched whole</source>
      <translation>添加整体匹配的词元</translation>
    </message>
    <message>
      <source>Remove tokens (BPE)</source>
      <translation>删除词元（BPE）</translation>
    </message>
    <message>
      <source>Pairs in the model's alphabet (Ġ for a space in a byte-level BPE), applied in order: a merge may use what an earlier one made.</source>
      <translation>用模型字母表书写的词元对（字节级 BPE 中空格写作 Ġ），按顺序应用：后一条合并可以使用前面合并生成的词元。</translation>
    </message>
    <message>
      <source>Separate tokens with commas; each gets a new id.</source>
      <translation>多个词元用逗号分隔；每个词元获得一个新 ID。</translation>
    </message>
    <message>
      <source>Matched whole wherever they appear in text; separate with commas.</source>
      <translation>在文本中出现之处都整体匹配；多个用逗号分隔。</translation>
    </message>
    <message>
      <source>In the model's alphabet; the merges that make or use them go too.</source>
      <translation>用模型字母表书写；生成或使用它们的合并规则也一并删除。</translation>
    </message>
    <message>
      <source>vocabulary {before} → {after}</source>
      <translation>词表 {before} → {after}</translation>
    </message>
    <message>
      <source>{added} token(s) added</source>
      <translation>添加了 {added} 个词元</translation>
    </message>
    <message>
      <source>{removed} token(s) removed</source>
      <translation>删除了 {removed} 个词元</translation>
    </message>
    <message>
      <source>{unreachable} token(s) become unreachable: {tokens}</source>
      <translation>{unreachable} 个词元变得无法生成：{tokens}</translation>
    </message>
    <message>
      <source>no token becomes unreachable</source>
      <translation>没有词元变得无法生成</translation>
    </message>
    <message>
      <source>{changed} of {checked} words checked cut differently</source>
      <translation>检查的 {checked} 个词中有 {changed} 个切分改变</translation>
    </message>
    <message>
      <source>{changed} of {checked} lines of the text checked cut differently</source>
      <translation>检查的文本 {checked} 行中有 {changed} 行切分改变</translation>
    </message>
    <message>
      <source>; </source>
      <translation>；</translation>
    </message>
    <message>
      <source>a merge is two tokens separated by a space, not {part}</source>
      <translation>一条合并是用空格分隔的两个词元，而不是 {part}</translation>
    </message>
    <message>
      <source>no merge given: write them as 'left right; left right'</source>
      <translation>未给出合并：请写成“左 右; 左 右”</translation>
    </message>
    <message>
      <source>no token given (separate several with commas)</source>
      <translation>未给出词元（多个用逗号分隔）</translation>
    </message>
    <message>
      <source>How many &lt;|reserved_special_token_N|&gt; to add</source>
      <translation>要添加多少个 &lt;|reserved_special_token_N|&gt;</translation>
    </message>
    <message>
      <source>Round the vocabulary up to a multiple of this with reserved tokens (pick one or type your own)</source>
      <translation>用保留词元把词表补齐到此数的倍数（可从列表中选，也可自行输入）</translation>
    </message>
    <message>
      <source>last</source>
      <translation>最后</translation>
    </message>
    <message>
      <source>Rank of the first added merge (last: after all the others)</source>
      <translation>第一条添加的合并的合并序号（最后：排在所有其他合并之后）</translation>
    </message>
    <message>
      <source>Check</source>
      <translation>检查</translation>
    </message>
    <message>
      <source>Apply</source>
      <translation>应用</translation>
    </message>
    <message>
      <source>Undo</source>
      <translation>撤销</translation>
    </message>
    <message>
      <source>Choose an edit and Check it: nothing changes before Apply.</source>
      <translation>选择一种编辑并检查：点“应用”之前不会有任何改变。</translation>
    </message>
    <message>
      <source>Edit</source>
      <translation>编辑</translation>
    </message>
    <message>
      <source>Tokens</source>
      <translation>词元</translation>
    </message>
    <message>
      <source>Count</source>
      <translation>数量</translation>
    </message>
    <message>
      <source>Multiple</source>
      <translation>倍数</translation>
    </message>
    <message>
      <source>At rank</source>
      <translation>合并序号</translation>
    </message>
    <message>
      <source>The edit changed: Check it again before applying.</source>
      <translation>编辑已改动：应用前请重新检查。</translation>
    </message>
    <message>
      <source>Merges</source>
      <translation>合并规则</translation>
    </message>
    <message>
      <source>pad to a multiple of a whole number (64, 128...), not {text}</source>
      <translation>请补齐到整数的倍数（64、128…），而不是 {text}</translation>
    </message>
    <message>
      <source>{size} → {padded} tokens: adds 1 reserved token</source>
      <translation>{size} → {padded} 个词元：添加 1 个保留词元</translation>
    </message>
    <message>
      <source>{size} → {padded} tokens: adds {add} reserved tokens</source>
      <translation>{size} → {padded} 个词元：添加 {add} 个保留词元</translation>
    </message>
    <message>
      <source>{size} tokens: already a multiple, nothing to add</source>
      <translation>{size} 个词元：已是倍数，无需添加</translation>
    </message>
    <message>
      <source>no tokenizer loaded</source>
      <translation>未加载分词器</translation>
    </message>
    <message>
      <source>unknown edit {kind}</source>
      <translation>未知的编辑 {kind}</translation>
    </message>
    <message>
      <source>Checking what the edit changes…</source>
      <translation>正在检查编辑带来的变化…</translation>
    </message>
    <message>
      <source>{summary}. Apply to use it.</source>
      <translation>{summary}。点“应用”即可使用。</translation>
    </message>
    <message>
      <source>Could not check the edit: {reason}</source>
      <translation>无法检查此编辑：{reason}</translation>
    </message>
    <message>
      <source>id {id}: {token}</source>
      <translation>ID {id}：{token}</translation>
    </message>
    <message>
      <source>Added tokens ({count})</source>
      <translation>添加的词元（{count}）</translation>
    </message>
    <message>
      <source>Removed tokens ({count})</source>
      <translation>删除的词元（{count}）</translation>
    </message>
    <message>
      <source>Unreachable after the edit ({count})</source>
      <translation>编辑后无法生成的词元（{count}）</translation>
    </message>
    <message>
      <source>Cut differently: {changed} of {checked} words</source>
      <translation>切分改变：{checked} 个词中的 {changed} 个</translation>
    </message>
    <message>
      <source>Cut differently: {changed} of {checked} lines of the text</source>
      <translation>切分改变：文本 {checked} 行中的 {changed} 行</translation>
    </message>
    <message>
      <source>{word}
before: {before}
after: {after}</source>
      <translation>{word}
之前：{before}
之后：{after}</translation>
    </message>
    <message>
      <source>Applied: the vocabulary has {size} tokens. Undo to go back.</source>
      <translation>已应用：词表现有 {size} 个词元。可撤销以返回。</translation>
    </message>
    <message>
      <source>Undone: the vocabulary has {size} tokens.</source>
      <translation>已撤销：词表现有 {size} 个词元。</translation>
    </message>
  </context>
  <context>
    <name>ExportDialog</name>
    <message>
      <source>Export tokenizer</source>
      <translation>导出分词器</translation>
    </message>
    <message>
      <source>{format}   (checking…)</source>
      <translation>{format}   （检查中…）</translation>
    </message>
    <message>
      <source>Scrub training metadata (corpus paths and the like)</source>
      <translation>清除训练元数据（语料路径等）</translation>
    </message>
    <message>
      <source>the tokenizer</source>
      <translation>该分词器</translation>
    </message>
    <message>
      <source>Write &lt;b&gt;{name}&lt;/b&gt; as:</source>
      <translation>将 &lt;b&gt;{name}&lt;/b&gt; 写为：</translation>
    </message>
    <message>
      <source>Cannot hold this tokenizer: {reason}</source>
      <translation>无法容纳此分词器：{reason}</translation>
    </message>
    <message>
      <source>Could not check which formats can hold it: {reason}</source>
      <translation>无法检查哪些格式可以容纳它：{reason}</translation>
    </message>
    <message>
      <source>Writing {path}…</source>
      <translation>正在写入 {path}…</translation>
    </message>
    <message>
      <source>Export to a folder</source>
      <translation>导出到文件夹</translation>
    </message>
    <message>
      <source>Save tokenizer as</source>
      <translation>分词器另存为</translation>
    </message>
  </context>
  <context>
    <name>FairnessView</name>
    <message>
      <source>premium</source>
      <translation>溢价</translation>
    </message>
    <message>
      <source>STRR</source>
      <translation>STRR</translation>
    </message>
    <message>
      <source>unk/byte</source>
      <translation>未知/字节</translation>
    </message>
    <message>
      <source>language</source>
      <translation>语言</translation>
    </message>
    <message>
      <source>Han</source>
      <translation>汉字</translation>
    </message>
    <message>
      <source>Hiragana</source>
      <translation>平假名</translation>
    </message>
    <message>
      <source>Katakana</source>
      <translation>片假名</translation>
    </message>
    <message>
      <source>Thai</source>
      <translation>泰文</translation>
    </message>
    <message>
      <source>Lao</source>
      <translation>老挝文</translation>
    </message>
    <message>
      <source>Khmer</source>
      <translation>高棉文</translation>
    </message>
    <message>
      <source>Myanmar</source>
      <translation>缅甸文</translation>
    </message>
    <message>
      <source>Parallel files, one per language (the language from the name: de.txt, page.pt_BR.txt), or folders of *.txt files</source>
      <translation>平行文件，每种语言一个（语言取自文件名：de.txt、page.pt_BR.txt），或包含 *.txt 文件的文件夹</translation>
    </message>
    <message>
      <source>Add files…</source>
      <translation>添加文件…</translation>
    </message>
    <message>
      <source>Add folder…</source>
      <translation>添加文件夹…</translation>
    </message>
    <message>
      <source>Remove</source>
      <translation>移除</translation>
    </message>
    <message>
      <source>The language every premium is relative to (its premium is 1.0)</source>
      <translation>所有溢价的参照语言（其溢价为 1.0）</translation>
    </message>
    <message>
      <source>Run</source>
      <translation>运行</translation>
    </message>
    <message>
      <source>Measure every tokenizer of the set on the parallel files</source>
      <translation>在平行文件上测量集合中的每个分词器</translation>
    </message>
    <message>
      <source>Add parallel files (one per language) or a folder of them, then Run.</source>
      <translation>添加平行文件（每种语言一个）或其所在文件夹，然后点击“运行”。</translation>
    </message>
    <message>
      <source>Token premium by language</source>
      <translation>各语言的词元溢价</translation>
    </message>
    <message>
      <source>Token premium: the tokens of a language relative to the pivot language's, for the same content</source>
      <translation>词元溢价：同一内容下，某语言的词元数相对参照语言词元数的倍数</translation>
    </message>
    <message>
      <source>Copy CSV</source>
      <translation>复制 CSV</translation>
    </message>
    <message>
      <source>Copy Markdown</source>
      <translation>复制 Markdown</translation>
    </message>
    <message>
      <source>Parallel files</source>
      <translation>平行文件</translation>
    </message>
    <message>
      <source>Pivot language</source>
      <translation>参照语言</translation>
    </message>
    <message>
      <source>STRR (single-token word rate): a word is a maximal run of \w characters outside scripts written without spaces ({scripts}); STRR is the share of word occurrences lying inside one token that is not the unknown token; a language whose word characters are more than {limit} in those scripts has no STRR (n/a).</source>
      <translation>STRR（单词元词比率）：词是不写空格的文字（{scripts}）之外由 \w 字符组成的最长连续串；STRR 是落在单个词元（且非未知词元）内的词出现次数所占的比例；若一种语言的词字符有超过 {limit} 属于这些文字，则没有 STRR（不适用）。</translation>
    </message>
    <message>
      <source>, </source>
      <translation>、</translation>
    </message>
    <message>
      <source>Fairness</source>
      <translation>公平性</translation>
    </message>
    <message>
      <source>No tokenizer: open one, or add tokenizers to the Compare tab</source>
      <translation>没有分词器：请打开一个，或在对比标签页中添加分词器</translation>
    </message>
    <message>
      <source>Add parallel files (one per language)</source>
      <translation>添加平行文件（每种语言一个）</translation>
    </message>
    <message>
      <source>Text files (*.txt);;All files (*)</source>
      <translation>文本文件 (*.txt);;所有文件 (*)</translation>
    </message>
    <message>
      <source>Add a folder of parallel files</source>
      <translation>添加平行文件所在的文件夹</translation>
    </message>
    <message>
      <source>No files yet.</source>
      <translation>尚无文件。</translation>
    </message>
    <message>
      <source>1 language: {languages}</source>
      <translation>1 种语言：{languages}</translation>
    </message>
    <message>
      <source>{n} languages: {languages}</source>
      <translation>{n} 种语言：{languages}</translation>
    </message>
    <message>
      <source>No tokenizer: open one, or add tokenizers to the Compare tab.</source>
      <translation>没有分词器：请打开一个，或在对比标签页中添加分词器。</translation>
    </message>
    <message>
      <source>Add parallel files (one per language) or a folder of them first.</source>
      <translation>请先添加平行文件（每种语言一个）或其所在文件夹。</translation>
    </message>
    <message>
      <source>Failed: {reason}</source>
      <translation>失败：{reason}</translation>
    </message>
    <message>
      <source>Measuring 1 tokenizer…</source>
      <translation>正在测量 1 个分词器…</translation>
    </message>
    <message>
      <source>Measuring {n} tokenizers…</source>
      <translation>正在测量 {n} 个分词器…</translation>
    </message>
    <message>
      <source>{languages} languages against {pivot}, 1 tokenizer.</source>
      <translation>{languages} 种语言，以 {pivot} 为参照，1 个分词器。</translation>
    </message>
    <message>
      <source>{languages} languages against {pivot}, {n} tokenizers.</source>
      <translation>{languages} 种语言，以 {pivot} 为参照，{n} 个分词器。</translation>
    </message>
    <message>
      <source> Highest premium: {language} with {tokenizer}, {premium}× the tokens.</source>
      <translation>最高溢价：{language}（{tokenizer}），词元数为参照的 {premium}×。</translation>
    </message>
    <message>
      <source>n/a</source>
      <translation>不适用</translation>
    </message>
    <message>
      <source>{tokenizer}, {language}: premium {premium}&lt;br&gt;{tokens} tokens ({pivot}: {pivot_tokens}); {chars} chars, {bytes} bytes per token&lt;br&gt;STRR {strr}; unknown + byte fallback {fallback}</source>
      <translation>{tokenizer}，{language}：溢价 {premium}&lt;br&gt;{tokens} 个词元（{pivot}：{pivot_tokens}）；每词元 {chars} 个字符、{bytes} 个字节&lt;br&gt;STRR {strr}；未知 + 字节回退 {fallback}</translation>
    </message>
    <message>
      <source>{language} is written mostly without spaces: no STRR</source>
      <translation>{language} 的书写基本不用空格：没有 STRR</translation>
    </message>
    <message>
      <source>Tokens for this language over tokens for {pivot}, same content, same tokenizer</source>
      <translation>同一内容、同一分词器下，该语言的词元数与 {pivot} 的词元数之比</translation>
    </message>
    <message>
      <source>Single-token word rate: share of words lying inside one token (n/a: written without spaces)</source>
      <translation>单词元词比率：落在单个词元内的词所占的比例（不适用：书写不用空格）</translation>
    </message>
    <message>
      <source>Unknown and byte-fallback tokens over all tokens</source>
      <translation>未知词元与字节回退词元占全部词元的比例</translation>
    </message>
  </context>
  <context>
    <name>FindBar</name>
    <message>
      <source>Find in text</source>
      <translation>在文本中查找</translation>
    </message>
    <message>
      <source>Previous match (Shift+Enter)</source>
      <translation>上一个匹配（Shift+Enter）</translation>
    </message>
    <message>
      <source>Next match (Enter)</source>
      <translation>下一个匹配（Enter）</translation>
    </message>
    <message>
      <source>Close the find bar (Esc)</source>
      <translation>关闭查找栏（Esc）</translation>
    </message>
    <message>
      <source>Match case</source>
      <translation>区分大小写</translation>
    </message>
    <message>
      <source>no match</source>
      <translation>无匹配</translation>
    </message>
    <message>
      <source>{index} of {total}</source>
      <translation>第 {index} / {total} 个</translation>
    </message>
    <message>
      <source>1 match</source>
      <translation>1 个匹配</translation>
    </message>
    <message>
      <source>{count} matches</source>
      <translation>{count} 个匹配</translation>
    </message>
  </context>
  <context>
    <name>Headers</name>
    <message>
      <source>path</source>
      <translation>路径</translation>
    </message>
    <message>
      <source>format</source>
      <translation>格式</translation>
    </message>
    <message>
      <source>model</source>
      <translation>模型</translation>
    </message>
    <message>
      <source>vocabulary size</source>
      <translation>词表大小</translation>
    </message>
    <message>
      <source>normalizer</source>
      <translation>规范化器</translation>
    </message>
    <message>
      <source>pre-tokenizer</source>
      <translation>预分词器</translation>
    </message>
    <message>
      <source>post-processor</source>
      <translation>后处理器</translation>
    </message>
    <message>
      <source>decoder</source>
      <translation>解码器</translation>
    </message>
    <message>
      <source>Tokens</source>
      <translation>词元</translation>
    </message>
    <message>
      <source>no tokenizer</source>
      <translation>无分词器</translation>
    </message>
    <message>
      <source>byte-level</source>
      <translation>字节级</translation>
    </message>
    <message>
      <source>vocabulary {size}</source>
      <translation>词表 {size}</translation>
    </message>
    <message>
      <source>normalizer {normalizer}</source>
      <translation>规范化器 {normalizer}</translation>
    </message>
    <message>
      <source>not exported</source>
      <translation>未导出</translation>
    </message>
    <message>
      <source>{name} (edited)</source>
      <translation>{name}（已编辑）</translation>
    </message>
    <message>
      <source>Text</source>
      <translation>文本</translation>
    </message>
  </context>
  <context>
    <name>IdsPanel</name>
    <message>
      <source>Space-separated</source>
      <translation>空格分隔</translation>
    </message>
    <message>
      <source>Comma-separated</source>
      <translation>逗号分隔</translation>
    </message>
    <message>
      <source>JSON / Python list</source>
      <translation>JSON / Python 列表</translation>
    </message>
    <message>
      <source>Copy</source>
      <translation>复制</translation>
    </message>
    <message>
      <source>Copy all the ids in the chosen style</source>
      <translation>按所选格式复制全部 ID</translation>
    </message>
    <message>
      <source>Paste ids to decode: 9906 1917  or  [9906, 1917]</source>
      <translation>粘贴要解码的 ID：9906 1917  或  [9906, 1917]</translation>
    </message>
    <message>
      <source>Decode</source>
      <translation>解码</translation>
    </message>
    <message>
      <source>Decode the ids in the box</source>
      <translation>解码输入框中的 ID</translation>
    </message>
    <message>
      <source>Decoded ids appear here as tokens.</source>
      <translation>解码后的 ID 以词元形式显示在这里。</translation>
    </message>
    <message>
      <source>No tokenizer loaded.</source>
      <translation>未加载分词器。</translation>
    </message>
    <message>
      <source>{count} ids → {text}</source>
      <translation>{count} 个 ID → {text}</translation>
    </message>
    <message>
      <source>{count} ids (the first {shown} shown)</source>
      <translation>{count} 个 ID（显示前 {shown} 个）</translation>
    </message>
    <message>
      <source>{count} ids</source>
      <translation>{count} 个 ID</translation>
    </message>
  </context>
  <context>
    <name>Language</name>
    <message>
      <source>L&amp;anguage</source>
      <translation>语言(&amp;A)</translation>
    </message>
    <message>
      <source>tokviz will speak {language} from its next start. Restart now? Your text, conversation and tokenizers come back as they are.</source>
      <translation>tokviz 下次启动时将使用{language}。现在重新启动吗？你的文本、对话和分词器会原样恢复。</translation>
    </message>
    <message>
      <source>Language</source>
      <translation>语言</translation>
    </message>
    <message>
      <source>Restart now</source>
      <translation>立即重新启动</translation>
    </message>
    <message>
      <source>Later</source>
      <translation>稍后</translation>
    </message>
  </context>
  <context>
    <name>LearnInput</name>
    <message>
      <source>BPE (characters)</source>
      <translation>字节对编码 BPE（字符级）</translation>
    </message>
    <message>
      <source>Byte-level BPE</source>
      <translation>字节级 BPE</translation>
    </message>
    <message>
      <source>separate symbol</source>
      <translation>独立符号</translation>
    </message>
    <message>
      <source>glued (HF)</source>
      <translation>粘连（HF）</translation>
    </message>
    <message>
      <source>none</source>
      <translation>无</translation>
    </message>
    <message>
      <source>Word counts</source>
      <translation>词频</translation>
    </message>
    <message>
      <source>Text</source>
      <translation>文本</translation>
    </message>
    <message>
      <source>the file holds {size} MB: Learn steps through small corpora (up to {limit} MB); train on big ones in the Training panel</source>
      <translation>该文件有 {size} MB：“学习”只逐步演示小语料（至多 {limit} MB）；大语料请在“训练”面板中训练</translation>
    </message>
    <message>
      <source>Word counts: items such as low:5, lines of 'word count', or a JSON object. Text: any text, cut into words and counted as the trainer counts its corpus.</source>
      <translation>词频：形如 low:5 的条目、每行“词 次数”，或 JSON 对象。文本：任意文本，按训练器统计语料的方式切成词并计数。</translation>
    </message>
    <message>
      <source>Open file…</source>
      <translation>打开文件…</translation>
    </message>
    <message>
      <source>Word counts, for example low:5 lowest:2 new:6 widest:3</source>
      <translation>词频，例如 low:5 lowest:2 new:6 widest:3</translation>
    </message>
    <message>
      <source>The end-of-word marker BPE adds to each word</source>
      <translation>BPE 加在每个词末尾的词尾标记</translation>
    </message>
    <message>
      <source>separate symbol: the marker is a symbol of its own (l o w &lt;/w&gt;); glued: it is glued to each word's last character (l o w&lt;/w&gt;), as HF's BpeTrainer's end_of_word_suffix; none: no marker</source>
      <translation>独立符号：标记自成一个符号（l o w &lt;/w&gt;）；粘连：标记粘在每个词的最后一个字符上（l o w&lt;/w&gt;），同 HF BpeTrainer 的 end_of_word_suffix；无：不加标记</translation>
    </message>
    <message>
      <source>How byte-level BPE cuts a text into words before counting them</source>
      <translation>字节级 BPE 计数前如何把文本切成词</translation>
    </message>
    <message>
      <source>automatic</source>
      <translation>自动</translation>
    </message>
    <message>
      <source>Stop when the vocabulary holds this many tokens.  Automatic: 100,000 for the merge models, so that training stops when no pair is frequent enough; Unigram: &lt;unk&gt;, the characters and one piece per distinct word</source>
      <translation>词表达到这么多词元时停止。自动：合并类模型取 100,000，使训练在没有足够高频的词对时停止；Unigram：&lt;unk&gt;、所有字符，再加每个不同的词一个子词</translation>
    </message>
    <message>
      <source>Pairs occurring fewer times are never merged (2: training stops when the best pair occurs once)</source>
      <translation>出现次数少于此值的词对不会被合并（2：最佳词对只出现一次时训练停止）</translation>
    </message>
    <message>
      <source>Which of the pairs of equal count is merged</source>
      <translation>频次相同（平局）时合并哪一个词对</translation>
    </message>
    <message>
      <source>Algorithm</source>
      <translation>算法</translation>
    </message>
    <message>
      <source>End of word</source>
      <translation>词尾</translation>
    </message>
    <message>
      <source>Split pattern</source>
      <translation>切分模式</translation>
    </message>
    <message>
      <source>Vocabulary size</source>
      <translation>词表大小</translation>
    </message>
    <message>
      <source>Min frequency</source>
      <translation>最小频次</translation>
    </message>
    <message>
      <source>Tie rule</source>
      <translation>平局规则</translation>
    </message>
    <message>
      <source>give an end-of-word marker (such as &lt;/w&gt;), or choose none</source>
      <translation>请给出词尾标记（例如 &lt;/w&gt;），或选择“无”</translation>
    </message>
    <message>
      <source>type some words (low:5 lowest:2 …) or a text to learn from</source>
      <translation>请输入一些词（low:5 lowest:2 …）或一段文本来学习</translation>
    </message>
    <message>
      <source>A word list or a text to learn from</source>
      <translation>用来学习的词表或文本</translation>
    </message>
    <message>
      <source>Text files (*.txt *.json *.md);;All files (*)</source>
      <translation>文本文件 (*.txt *.json *.md);;所有文件 (*)</translation>
    </message>
  </context>
  <context>
    <name>LearnView</name>
    <message>
      <source>Learn</source>
      <translation>学习</translation>
    </message>
    <message>
      <source>Learn from these words with these options (edits are learned by themselves a moment after you stop typing)</source>
      <translation>用这些词和选项学习（停止输入片刻后，修改会自动重新学习）</translation>
    </message>
    <message>
      <source>← Back</source>
      <translation>← 后退</translation>
    </message>
    <message>
      <source>Step →</source>
      <translation>单步 →</translation>
    </message>
    <message>
      <source>Run to end</source>
      <translation>运行到结束</translation>
    </message>
    <message>
      <source>Reset</source>
      <translation>重置</translation>
    </message>
    <message>
      <source>One step back ({key})</source>
      <translation>后退一步（{key}）</translation>
    </message>
    <message>
      <source>The next step ({key})</source>
      <translation>下一步（{key}）</translation>
    </message>
    <message>
      <source>The last step ({key})</source>
      <translation>最后一步（{key}）</translation>
    </message>
    <message>
      <source>Back to the words before training ({key})</source>
      <translation>回到训练前的词（{key}）</translation>
    </message>
    <message>
      <source>A text to cut with the tokenizer at this step</source>
      <translation>用这一步的分词器切分的文本</translation>
    </message>
    <message>
      <source>Open as tokenizer</source>
      <translation>作为分词器打开</translation>
    </message>
    <message>
      <source>Open the tokenizer learned to the end in the explorer</source>
      <translation>在浏览器中打开学习到最后的分词器</translation>
    </message>
    <message>
      <source>Cut at step {position}:</source>
      <translation>第 {position} 步的切分：</translation>
    </message>
    <message>
      <source>Cutting at step {position}…</source>
      <translation>正在按第 {position} 步切分…</translation>
    </message>
    <message>
      <source>Cut at this step:</source>
      <translation>这一步的切分：</translation>
    </message>
    <message>
      <source>Learning…</source>
      <translation>正在学习…</translation>
    </message>
    <message>
      <source>{steps} steps learned from {words} distinct words.</source>
      <translation>从 {words} 个不同的词学习了 {steps} 步。</translation>
    </message>
    <message>
      <source>Cannot learn: {reason}</source>
      <translation>无法学习：{reason}</translation>
    </message>
    <message>
      <source>step {position} of {steps}</source>
      <translation>第 {position} 步，共 {steps} 步</translation>
    </message>
  </context>
  <context>
    <name>LibraryPanel</name>
    <message>
      <source>Recent</source>
      <translation>最近使用</translation>
    </message>
    <message>
      <source>Shipped with tokviz</source>
      <translation>tokviz 自带</translation>
    </message>
    <message>
      <source>Hugging Face cache</source>
      <translation>Hugging Face 缓存</translation>
    </message>
    <message>
      <source>tiktoken cache</source>
      <translation>tiktoken 缓存</translation>
    </message>
    <message>
      <source>Installed packages</source>
      <translation>已安装的包</translation>
    </message>
    <message>
      <source>Folders</source>
      <translation>文件夹</translation>
    </message>
    <message>
      <source>Name</source>
      <translation>名称</translation>
    </message>
    <message>
      <source>Format</source>
      <translation>格式</translation>
    </message>
    <message>
      <source>Model</source>
      <translation>模型</translation>
    </message>
    <message>
      <source>Vocab</source>
      <translation>词表</translation>
    </message>
    <message>
      <source>Filter, or a Hub name: owner/model</source>
      <translation>筛选，或输入 Hub 名称：owner/model</translation>
    </message>
    <message>
      <source>Type to filter the list.  Enter opens the one tokenizer left, or a Hugging Face Hub name (owner/model, optionally @revision) from the local cache</source>
      <translation>输入文字以筛选列表。按 Enter 打开筛选后仅剩的那个分词器，或从本地缓存打开一个 Hugging Face Hub 名称（owner/model，可加 @revision）</translation>
    </message>
    <message>
      <source>Download</source>
      <translation>下载</translation>
    </message>
    <message>
      <source>Fetch the tokenizer's files (no weights) from the Hugging Face Hub into the cache</source>
      <translation>从 Hugging Face Hub 下载分词器文件（不含权重）到缓存</translation>
    </message>
    <message>
      <source>Cancel</source>
      <translation>取消</translation>
    </message>
    <message>
      <source>Add folder…</source>
      <translation>添加文件夹…</translation>
    </message>
    <message>
      <source>Look for tokenizers in a folder (and its subfolders)</source>
      <translation>在一个文件夹（及其子文件夹）中查找分词器</translation>
    </message>
    <message>
      <source>Refresh</source>
      <translation>刷新</translation>
    </message>
    <message>
      <source>Looking for tokenizers…</source>
      <translation>正在查找分词器…</translation>
    </message>
    <message>
      <source>Could not look for tokenizers: {reason}</source>
      <translation>无法查找分词器：{reason}</translation>
    </message>
    <message>
      <source>No tokenizer here is called {name}, and it is not a Hub name (owner/model).</source>
      <translation>这里没有名为 {name} 的分词器，它也不是 Hub 名称（owner/model）。</translation>
    </message>
    <message>
      <source>{name} at {revision} is not in the Hugging Face cache ({folder}). Download its tokenizer files (no weights) from the Hub?</source>
      <translation>{name}（版本 {revision}）不在 Hugging Face 缓存（{folder}）中。要从 Hub 下载它的分词器文件（不含权重）吗？</translation>
    </message>
    <message>
      <source>{name} is not in the Hugging Face cache ({folder}). Download its tokenizer files (no weights) from the Hub?</source>
      <translation>{name} 不在 Hugging Face 缓存（{folder}）中。要从 Hub 下载它的分词器文件（不含权重）吗？</translation>
    </message>
    <message>
      <source>{name} is in the Hugging Face cache but holds no tokenizer files.</source>
      <translation>{name} 在 Hugging Face 缓存中，但没有分词器文件。</translation>
    </message>
    <message>
      <source>Downloading the tokenizer files of {name}…</source>
      <translation>正在下载 {name} 的分词器文件…</translation>
    </message>
    <message>
      <source>Download cancelled.</source>
      <translation>已取消下载。</translation>
    </message>
    <message>
      <source>{group} ({count})</source>
      <translation>{group}（{count}）</translation>
    </message>
    <message>
      <source>{count} tokenizers</source>
      <translation>{count} 个分词器</translation>
    </message>
    <message>
      <source>No tokenizers found: add a folder</source>
      <translation>未找到分词器：请添加文件夹</translation>
    </message>
    <message>
      <source>unreadable</source>
      <translation>无法读取</translation>
    </message>
    <message>
      <source>Add a folder of tokenizers</source>
      <translation>添加分词器文件夹</translation>
    </message>
  </context>
  <context>
    <name>MainWindow</name>
    <message>
      <source>Explorer</source>
      <translation>浏览</translation>
    </message>
    <message>
      <source>Compare</source>
      <translation>对比</translation>
    </message>
    <message>
      <source>Chat</source>
      <translation>对话</translation>
    </message>
    <message>
      <source>Fairness</source>
      <translation>公平性</translation>
    </message>
    <message>
      <source>Robustness</source>
      <translation>鲁棒性</translation>
    </message>
    <message>
      <source>Overlap</source>
      <translation>重叠</translation>
    </message>
    <message>
      <source>Analyses</source>
      <translation>分析</translation>
    </message>
    <message>
      <source>Learn</source>
      <translation>学习</translation>
    </message>
    <message>
      <source>Restored the work (text and conversation) of a session that did not close normally</source>
      <translation>已恢复未正常关闭的会话中的工作（文本和对话）</translation>
    </message>
    <message>
      <source>“{text}” is not in the text</source>
      <translation>文本中没有“{text}”</translation>
    </message>
    <message>
      <source>{chars} chars/token · {bytes} bytes/token</source>
      <translation>每词元 {chars} 字符 · 每词元 {bytes} 字节</translation>
    </message>
    <message>
      <source>– chars/token</source>
      <translation>每词元 – 字符</translation>
    </message>
    <message>
      <source>encoded in {ms} ms</source>
      <translation>编码耗时 {ms} 毫秒</translation>
    </message>
    <message>
      <source>Cannot encode this text:
{reason}</source>
      <translation>无法编码此文本：
{reason}</translation>
    </message>
    <message>
      <source>encode failed</source>
      <translation>编码失败</translation>
    </message>
    <message>
      <source>{tokens} ({past} past the max length of {max})</source>
      <translation>{tokens}（超出最大长度 {max}，多 {past} 个）</translation>
    </message>
    <message>
      <source>{tokens} (max length {max})</source>
      <translation>{tokens}（最大长度 {max}）</translation>
    </message>
    <message>
      <source>No installed font shows {scripts}: drawn as boxes (install fonts-noto-core)</source>
      <translation>没有已安装的字体能显示{scripts}：显示为方框（请安装 fonts-noto-core）</translation>
    </message>
  </context>
  <context>
    <name>MenuDialogs</name>
    <message>
      <source>All files</source>
      <translation>所有文件</translation>
    </message>
    <message>
      <source>Open tokenizer</source>
      <translation>打开分词器</translation>
    </message>
    <message>
      <source>Tokenizers</source>
      <translation>分词器</translation>
    </message>
    <message>
      <source>Open tokenizer folder</source>
      <translation>打开分词器文件夹</translation>
    </message>
    <message>
      <source>Open text</source>
      <translation>打开文本</translation>
    </message>
    <message>
      <source>Text files</source>
      <translation>文本文件</translation>
    </message>
    <message>
      <source>No tokens to go to</source>
      <translation>没有可转到的词元</translation>
    </message>
    <message>
      <source>Token number in the preview (1–{count}; the whole file's once it is encoded):</source>
      <translation>预览中的词元序号（1–{count}；整个文件编码完成后为整个文件的）：</translation>
    </message>
    <message>
      <source>Token number (1–{count}):</source>
      <translation>词元序号（1–{count}）：</translation>
    </message>
    <message>
      <source>Go to token</source>
      <translation>转到词元</translation>
    </message>
    <message>
      <source>There is no token {number} now</source>
      <translation>现在没有第 {number} 个词元</translation>
    </message>
    <message>
      <source>Max length</source>
      <translation>最大长度</translation>
    </message>
    <message>
      <source>Max length in tokens (0: none):</source>
      <translation>最大长度（词元数，0 表示不限）：</translation>
    </message>
    <message>
      <source>About tokviz</source>
      <translation>关于 tokviz</translation>
    </message>
    <message>
      <source>Nothing opened yet</source>
      <translation>尚未打开任何内容</translation>
    </message>
  </context>
  <context>
    <name>MergePage</name>
    <message>
      <source>symbols</source>
      <translation>符号</translation>
    </message>
    <message>
      <source>count</source>
      <translation>次数</translation>
    </message>
    <message>
      <source>#</source>
      <translation>#</translation>
    </message>
    <message>
      <source>merge</source>
      <translation>合并</translation>
    </message>
    <message>
      <source>new symbol</source>
      <translation>新符号</translation>
    </message>
    <message>
      <source>Corpus: each word's symbols</source>
      <translation>语料：每个词的符号</translation>
    </message>
    <message>
      <source>Pair counts</source>
      <translation>词对计数</translation>
    </message>
    <message>
      <source>Vocabulary</source>
      <translation>词表</translation>
    </message>
    <message>
      <source>pair</source>
      <translation>词对</translation>
    </message>
    <message>
      <source>count(ab)</source>
      <translation>次数(ab)</translation>
    </message>
    <message>
      <source>count(a)</source>
      <translation>次数(a)</translation>
    </message>
    <message>
      <source>count(b)</source>
      <translation>次数(b)</translation>
    </message>
    <message>
      <source>score</source>
      <translation>得分</translation>
    </message>
    <message>
      <source>note</source>
      <translation>说明</translation>
    </message>
    <message>
      <source>Scores: count(ab) / (count(a) · count(b))</source>
      <translation>得分：次数(ab) / (次数(a) · 次数(b))</translation>
    </message>
    <message>
      <source>{title}: the best {shown} of {total}</source>
      <translation>{title}：{total} 个中最好的 {shown} 个</translation>
    </message>
    <message>
      <source>Before training: each word split into its symbols; {count} merges to come</source>
      <translation>训练前：每个词拆成符号；接下来有 {count} 次合并</translation>
    </message>
    <message>
      <source>Step {number}: merge {left} + {right} → {symbol} ({count} times)</source>
      <translation>第 {number} 步：合并 {left} + {right} → {symbol}（{count} 次）</translation>
    </message>
    <message>
      <source>merged</source>
      <translation>已合并</translation>
    </message>
    <message>
      <source>tied</source>
      <translation>并列</translation>
    </message>
    <message>
      <source>BPE's pick</source>
      <translation>BPE 的选择</translation>
    </message>
    <message>
      <source>Vocabulary: {count} tokens</source>
      <translation>词表：{count} 个词元</translation>
    </message>
  </context>
  <context>
    <name>MergeTables</name>
    <message>
      <source>indexing…</source>
      <translation>正在建立索引…</translation>
    </message>
  </context>
  <context>
    <name>MergeTreeView</name>
    <message>
      <source>unreachable: its own string never encodes to it</source>
      <translation>无法生成：编码它自己的字符串永远得不到它</translation>
    </message>
    <message>
      <source>id {id}</source>
      <translation>ID {id}</translation>
    </message>
    <message>
      <source>not a token</source>
      <translation>不是词元</translation>
    </message>
  </context>
  <context>
    <name>MergesHealth</name>
    <message>
      <source>unreachable</source>
      <translation>无法生成</translation>
    </message>
    <message>
      <source>bad merges</source>
      <translation>无效合并</translation>
    </message>
    <message>
      <source>partial UTF-8</source>
      <translation>不完整 UTF-8</translation>
    </message>
    <message>
      <source>duplicates</source>
      <translation>重复</translation>
    </message>
    <message>
      <source>split specials</source>
      <translation>被拆分的特殊词元</translation>
    </message>
    <message>
      <source>undecodable</source>
      <translation>无法往返</translation>
    </message>
    <message>
      <source>unproduced specials</source>
      <translation>不会产生的特殊词元</translation>
    </message>
    <message>
      <source>intermediate-only</source>
      <translation>仅作中间词元</translation>
    </message>
    <message>
      <source>added duplicates</source>
      <translation>重复的添加词元</translation>
    </message>
    <message>
      <source>same decode</source>
      <translation>解码相同</translation>
    </message>
    <message>
      <source>stray bytes</source>
      <translation>孤立字节</translation>
    </message>
    <message>
      <source>{model}, {size} tokens ({checked} checked for reachability): {found} of {kinds} kinds of finding (the chart; the list below).</source>
      <translation>{model}，{size} 个词元（检查了 {checked} 个能否生成）：{kinds} 类问题中发现 {found} 类（见图表及下方列表）。</translation>
    </message>
    <message>
      <source>{count} {finding}</source>
      <translation>{finding} {count}</translation>
    </message>
    <message>
      <source>, </source>
      <translation>，</translation>
    </message>
    <message>
      <source>{title} ({count})</source>
      <translation>{title}（{count}）</translation>
    </message>
    <message>
      <source>ids {ids}</source>
      <translation>ID {ids}</translation>
    </message>
    <message>
      <source>encodes to {pieces}</source>
      <translation>编码为 {pieces}</translation>
    </message>
    <message>
      <source>Unreachable tokens</source>
      <translation>无法生成的词元</translation>
    </message>
    <message>
      <source>Merges that cannot work as listed</source>
      <translation>无法按列出顺序生效的合并</translation>
    </message>
    <message>
      <source>Tokens that are not UTF-8 alone (byte-level: expected)</source>
      <translation>单独不构成 UTF-8 的词元（字节级：属正常）</translation>
    </message>
    <message>
      <source>Duplicate token strings</source>
      <translation>重复的词元字符串</translation>
    </message>
    <message>
      <source>Added tokens the pre-tokenizer would split</source>
      <translation>会被预分词器拆开的添加的词元</translation>
    </message>
    <message>
      <source>only from {who}</source>
      <translation>仅来自 {who}</translation>
    </message>
    <message>
      <source>IoS {ios}: {merged} of {count} merged again</source>
      <translation>IoS {ios}：{count} 次中有 {merged} 次被再次合并</translation>
    </message>
    <message>
      <source>model token {id}</source>
      <translation>模型词元 {id}</translation>
    </message>
    <message>
      <source>Undecodable: decode, then encode, never gives the token back</source>
      <translation>无法往返：解码后再编码，得不到原词元</translation>
    </message>
    <message>
      <source>Specials text never produces</source>
      <translation>文本永远不会产生的特殊词元</translation>
    </message>
    <message>
      <source>Intermediate-only (IoS ≥ {threshold} in {corpus})</source>
      <translation>仅作中间词元（在 {corpus} 上 IoS ≥ {threshold}）</translation>
    </message>
    <message>
      <source>Added tokens duplicating model tokens</source>
      <translation>与模型词元重复的添加的词元</translation>
    </message>
    <message>
      <source>Ids that decode alike</source>
      <translation>解码结果相同的 ID</translation>
    </message>
    <message>
      <source>Stray bytes: text only with their neighbours</source>
      <translation>孤立字节：需与相邻词元一起才成文本</translation>
    </message>
  </context>
  <context>
    <name>MergesPanel</name>
    <message>
      <source>Token or id, e.g. Ġtokenizer or 45702</source>
      <translation>词元或 ID，如 Ġtokenizer 或 45702</translation>
    </message>
    <message>
      <source>◀ Back</source>
      <translation>◀ 返回</translation>
    </message>
    <message>
      <source>Zoom out (Ctrl+wheel, -)</source>
      <translation>缩小（Ctrl+滚轮，-）</translation>
    </message>
    <message>
      <source>Fit</source>
      <translation>适应</translation>
    </message>
    <message>
      <source>Fit the tree to the view (0)</source>
      <translation>使合并树适应视图（0）</translation>
    </message>
    <message>
      <source>Zoom in (Ctrl+wheel, +)</source>
      <translation>放大（Ctrl+滚轮，+）</translation>
    </message>
    <message>
      <source>Used by</source>
      <translation>被使用于</translation>
    </message>
    <message>
      <source>The merges that take this token as a part (double-click one to go there)</source>
      <translation>以此词元为组成部分的合并（双击可跳转）</translation>
    </message>
    <message>
      <source>Text to trace, e.g. lower or 乌鲁木齐</source>
      <translation>要查看切分过程的文本，如 lower 或 乌鲁木齐</translation>
    </message>
    <message>
      <source>segmentation</source>
      <translation>切分</translation>
    </message>
    <message>
      <source>log-prob</source>
      <translation>对数概率</translation>
    </message>
    <message>
      <source>probability</source>
      <translation>概率</translation>
    </message>
    <message>
      <source>Check the vocabulary</source>
      <translation>检查词表</translation>
    </message>
    <message>
      <source>Finds unreachable tokens, merges that cannot work, partial UTF-8 tokens, duplicates, added tokens the pre-tokenizer would split, undecodable tokens, specials text never produces, intermediate-only tokens (IoS on the sample texts), added tokens duplicating model tokens, ids that decode alike and stray-byte tokens.</source>
      <translation>查找无法生成的词元、无法生效的合并、不完整的 UTF-8 词元、重复词元、会被预分词器拆开的添加的词元、无法往返的词元、文本永远不会产生的特殊词元、仅作中间词元（在示例文本上计算 IoS）、与模型词元重复的添加的词元、解码结果相同的 ID 以及孤立字节词元。</translation>
    </message>
    <message>
      <source>finding</source>
      <translation>问题</translation>
    </message>
    <message>
      <source>detail</source>
      <translation>详情</translation>
    </message>
    <message>
      <source>count (log scale)</source>
      <translation>计数（对数刻度）</translation>
    </message>
    <message>
      <source>Build</source>
      <translation>构建</translation>
    </message>
    <message>
      <source>Health</source>
      <translation>健康度</translation>
    </message>
    <message>
      <source>{token} is not a token of this model.</source>
      <translation>{token} 不是此模型的词元。</translation>
    </message>
    <message>
      <source>{token} · indexing…</source>
      <translation>{token} · 正在建立索引…</translation>
    </message>
    <message>
      <source>id {id}</source>
      <translation>ID {id}</translation>
    </message>
    <message>
      <source>merge #{rank}</source>
      <translation>合并 #{rank}</translation>
    </message>
    <message>
      <source>{symbols} symbols, depth {depth}</source>
      <translation>{symbols} 个符号，深度 {depth}</translation>
    </message>
    <message>
      <source>unreachable: its own string never encodes to it (the tree its listed merges imply)</source>
      <translation>无法生成：它自己的字符串永远不会编码为它（此处为其列出的合并所对应的树）</translation>
    </message>
    <message>
      <source>Used by: indexing…</source>
      <translation>被使用于：正在建立索引…</translation>
    </message>
    <message>
      <source>Used by 1 merge</source>
      <translation>被 1 条合并使用</translation>
    </message>
    <message>
      <source>Used by {count} merges</source>
      <translation>被 {count} 条合并使用</translation>
    </message>
    <message>
      <source>The first 500 of {count}</source>
      <translation>{count} 条中的前 500 条</translation>
    </message>
    <message>
      <source>Could not index the merges: {0}</source>
      <translation>无法为合并规则建立索引：{0}</translation>
    </message>
    <message>
      <source>Used by: not indexed</source>
      <translation>被使用于：未建立索引</translation>
    </message>
    <message>
      <source>indexing…</source>
      <translation>正在建立索引…</translation>
    </message>
    <message>
      <source>initial symbols</source>
      <translation>初始符号</translation>
    </message>
    <message>
      <source>the word is a token: taken whole</source>
      <translation>该词本身是词元：整体取用</translation>
    </message>
    <message>
      <source>ignore_merges: whole-word lookup</source>
      <translation>ignore_merges：整词查找</translation>
    </message>
    <message>
      <source>step {step}: merge #{rank}  {left} + {right} → {merged}</source>
      <translation>第 {step} 步：合并 #{rank}  {left} + {right} → {merged}</translation>
    </message>
    <message>
      <source>step {step}: best piece score {score}  {left} + {right} → {merged}</source>
      <translation>第 {step} 步：最佳片段得分 {score}  {left} + {right} → {merged}</translation>
    </message>
    <message>
      <source>the word</source>
      <translation>该词</translation>
    </message>
    <message>
      <source>step {step}: nothing matches at character {at} → the whole word is {unk}</source>
      <translation>第 {step} 步：第 {at} 个字符处无匹配 → 整个词为 {unk}</translation>
    </message>
    <message>
      <source>step {step}: longest match at character {at}: {piece} (id {id})</source>
      <translation>第 {step} 步：第 {at} 个字符处的最长匹配：{piece}（ID {id}）</translation>
    </message>
    <message>
      <source>step {step}: longest match at character {at}: {piece} (id {id}); not in the vocabulary: {tried}</source>
      <translation>第 {step} 步：第 {at} 个字符处的最长匹配：{piece}（ID {id}）；不在词表中：{tried}</translation>
    </message>
    <message>
      <source>longer than {count} characters → {unk}</source>
      <translation>超过 {count} 个字符 → {unk}</translation>
    </message>
    <message>
      <source>{count} pieces match; the filled ones are the best path (what the model encodes)</source>
      <translation>{count} 个片段匹配；实心的是最佳路径（即模型的编码结果）</translation>
    </message>
    <message>
      <source>no trace for {kind} models</source>
      <translation>{kind} 模型没有切分过程</translation>
    </message>
    <message>
      <source>{step} of {steps}: {caption}</source>
      <translation>{step}/{steps}：{caption}</translation>
    </message>
    <message>
      <source>The check failed: {reason}</source>
      <translation>检查失败：{reason}</translation>
    </message>
    <message>
      <source>Checking…</source>
      <translation>正在检查…</translation>
    </message>
  </context>
  <context>
    <name>OverlapView</name>
    <message>
      <source>A</source>
      <translation>A</translation>
    </message>
    <message>
      <source>B</source>
      <translation>B</translation>
    </message>
    <message>
      <source>shared</source>
      <translation>共有</translation>
    </message>
    <message>
      <source>Jaccard</source>
      <translation>Jaccard</translation>
    </message>
    <message>
      <source>A in B</source>
      <translation>A 含于 B</translation>
    </message>
    <message>
      <source>B in A</source>
      <translation>B 含于 A</translation>
    </message>
    <message>
      <source>common
prefix</source>
      <translation>共同
前缀</translation>
    </message>
    <message>
      <source>rank
correlation</source>
      <translation>序号
相关性</translation>
    </message>
    <message>
      <source>verdict</source>
      <translation>结论</translation>
    </message>
    <message>
      <source>The first tokenizer of the pair</source>
      <translation>这一对中的第一个分词器</translation>
    </message>
    <message>
      <source>The second tokenizer of the pair</source>
      <translation>这一对中的第二个分词器</translation>
    </message>
    <message>
      <source>Tokens in both vocabularies (compared as bytes)</source>
      <translation>两个词表都有的词元（按字节比较）</translation>
    </message>
    <message>
      <source>Shared tokens over the tokens of either vocabulary</source>
      <translation>共有词元占两个词表词元并集的比例</translation>
    </message>
    <message>
      <source>Share of A's tokens that B has too</source>
      <translation>A 的词元中 B 也有的比例</translation>
    </message>
    <message>
      <source>Share of B's tokens that A has too</source>
      <translation>B 的词元中 A 也有的比例</translation>
    </message>
    <message>
      <source>Common merge prefix: how many merges both lists start with, in the same order</source>
      <translation>共同合并前缀：两份合并列表开头按相同顺序一致的合并条数</translation>
    </message>
    <message>
      <source>Rank correlation (Spearman) of the merges both lists have</source>
      <translation>两份列表共有合并的序号相关性（Spearman）</translation>
    </message>
    <message>
      <source>Was one derived from the other? (the full text below the table)</source>
      <translation>一个是否派生自另一个？（完整说明见表格下方）</translation>
    </message>
    <message>
      <source>Tokens per category</source>
      <translation>各类别的词元</translation>
    </message>
    <message>
      <source>Merge ranks</source>
      <translation>合并序号</translation>
    </message>
    <message>
      <source>Run</source>
      <translation>运行</translation>
    </message>
    <message>
      <source>Compare the vocabularies and merge lists of every pair of tokenizers</source>
      <translation>两两对比分词器的词表和合并列表</translation>
    </message>
    <message>
      <source>Add at least two tokenizers, then Run.</source>
      <translation>请至少添加两个分词器，然后点击“运行”。</translation>
    </message>
    <message>
      <source>Copy Markdown</source>
      <translation>复制 Markdown</translation>
    </message>
    <message>
      <source>Copy the table (with the verdicts) as Markdown; Shift+click: CSV</source>
      <translation>以 Markdown 复制表格（含结论）；Shift+单击：CSV</translation>
    </message>
    <message>
      <source>share of the category</source>
      <translation>占该类别的比例</translation>
    </message>
    <message>
      <source>rank in A</source>
      <translation>在 A 中的序号</translation>
    </message>
    <message>
      <source>rank in B</source>
      <translation>在 B 中的序号</translation>
    </message>
    <message>
      <source>{n} tokenizers: Run to compare them.</source>
      <translation>{n} 个分词器：点击“运行”进行对比。</translation>
    </message>
    <message>
      <source>Overlap</source>
      <translation>重叠</translation>
    </message>
    <message>
      <source>Comparing {n} tokenizers…</source>
      <translation>正在对比 {n} 个分词器…</translation>
    </message>
    <message>
      <source>Compared {pairs} pair(s) in {seconds} s.</source>
      <translation>已对比 {pairs} 对，用时 {seconds} 秒。</translation>
    </message>
    <message>
      <source>Failed: {reason}</source>
      <translation>失败：{reason}</translation>
    </message>
    <message>
      <source>{a} vs {b}: {verdict}</source>
      <translation>{a} 对 {b}：{verdict}</translation>
    </message>
    <message>
      <source>Tokens: {tokens_a} in {a}, {tokens_b} in {b}, {shared} shared ({same_id} with the same id). Special and added tokens, compared apart: {special_shared} shared, {special_only_a} only in {a}, {special_only_b} only in {b}.</source>
      <translation>词元：{a} 有 {tokens_a} 个，{b} 有 {tokens_b} 个，共有 {shared} 个（其中 {same_id} 个 ID 相同）。特殊词元和添加的词元单独比较：共有 {special_shared} 个，仅 {a} 有 {special_only_a} 个，仅 {b} 有 {special_only_b} 个。</translation>
    </message>
    <message>
      <source>derived from ranks</source>
      <translation>由序号推出</translation>
    </message>
    <message>
      <source>listed</source>
      <translation>已列出</translation>
    </message>
    <message>
      <source>Merges: {merges_a} in {a} ({how_a}), {merges_b} in {b} ({how_b}); {shared} shared; common prefix {prefix} (at rank {rank}: {merge_a} in {a}, {merge_b} in {b}).</source>
      <translation>合并规则：{a} 有 {merges_a} 条（{how_a}），{b} 有 {merges_b} 条（{how_b}）；共有 {shared} 条；共同前缀 {prefix} 条（在序号 {rank} 处：{a} 为 {merge_a}，{b} 为 {merge_b}）。</translation>
    </message>
    <message>
      <source>Merges: {merges_a} in {a} ({how_a}), {merges_b} in {b} ({how_b}); {shared} shared; common prefix {prefix}.</source>
      <translation>合并规则：{a} 有 {merges_a} 条（{how_a}），{b} 有 {merges_b} 条（{how_b}）；共有 {shared} 条；共同前缀 {prefix} 条。</translation>
    </message>
    <message>
      <source>only in {name}</source>
      <translation>仅 {name} 有</translation>
    </message>
    <message>
      <source>rank in {name}</source>
      <translation>在 {name} 中的序号</translation>
    </message>
    <message>
      <source>No merges to compare: {why}.</source>
      <translation>没有可对比的合并规则：{why}。</translation>
    </message>
    <message>
      <source>No merge is in both lists.</source>
      <translation>两份列表没有共同的合并。</translation>
    </message>
    <message>
      <source>Each shared merge at its rank in {a} and in {b} ({shown} of {shared} shown): the same order climbs steadily; the dashes are equal ranks.</source>
      <translation>每条共有合并在 {a} 和 {b} 中的序号（显示 {shared} 条中的 {shown} 条）：顺序相同则平稳上升；虚线表示序号相等。</translation>
    </message>
    <message>
      <source>lists part at {rank}</source>
      <translation>列表在 {rank} 处分岔</translation>
    </message>
  </context>
  <context>
    <name>Perturbations</name>
    <message>
      <source>homoglyphs</source>
      <translation>同形字符</translation>
    </message>
    <message>
      <source>math bold</source>
      <translation>数学粗体</translation>
    </message>
    <message>
      <source>math italic</source>
      <translation>数学斜体</translation>
    </message>
    <message>
      <source>math sans</source>
      <translation>数学无衬线</translation>
    </message>
    <message>
      <source>math mono</source>
      <translation>数学等宽</translation>
    </message>
    <message>
      <source>full-width</source>
      <translation>全角</translation>
    </message>
    <message>
      <source>+diacritics</source>
      <translation>+变音符号</translation>
    </message>
    <message>
      <source>−diacritics</source>
      <translation>−变音符号</translation>
    </message>
    <message>
      <source>UPPER</source>
      <translation>全大写</translation>
    </message>
    <message>
      <source>lower</source>
      <translation>全小写</translation>
    </message>
    <message>
      <source>rAnDoM case</source>
      <translation>随机大小写</translation>
    </message>
    <message>
      <source>OCR typos</source>
      <translation>OCR 错字</translation>
    </message>
    <message>
      <source>LaTeX</source>
      <translation>LaTeX</translation>
    </message>
    <message>
      <source>Latin letters replaced by Cyrillic/Greek look-alikes</source>
      <translation>拉丁字母替换为外形相似的西里尔/希腊字母</translation>
    </message>
    <message>
      <source>letters and digits as mathematical bold alphanumerics</source>
      <translation>字母和数字改用数学粗体字母数字符号</translation>
    </message>
    <message>
      <source>letters and digits as mathematical italic alphanumerics</source>
      <translation>字母和数字改用数学斜体字母数字符号</translation>
    </message>
    <message>
      <source>letters and digits as mathematical sans-serif alphanumerics</source>
      <translation>字母和数字改用数学无衬线字母数字符号</translation>
    </message>
    <message>
      <source>letters and digits as mathematical monospace alphanumerics</source>
      <translation>字母和数字改用数学等宽字母数字符号</translation>
    </message>
    <message>
      <source>ASCII as full-width forms (ＡＢＣ１２３！)</source>
      <translation>ASCII 改为全角形式（ＡＢＣ１２３！）</translation>
    </message>
    <message>
      <source>ASCII letters given an accent (e → é, è, ë...)</source>
      <translation>ASCII 字母加上重音（e → é、è、ë…）</translation>
    </message>
    <message>
      <source>accents removed (é → e, ø → o)</source>
      <translation>去掉重音（é → e，ø → o）</translation>
    </message>
    <message>
      <source>words in upper case</source>
      <translation>单词改为大写</translation>
    </message>
    <message>
      <source>words in lower case</source>
      <translation>单词改为小写</translation>
    </message>
    <message>
      <source>letters' case swapped at random</source>
      <translation>随机互换字母大小写</translation>
    </message>
    <message>
      <source>OCR confusions: rn↔m, cl↔d, l↔1, O↔0, e↔c...</source>
      <translation>OCR 混淆：rn↔m、cl↔d、l↔1、O↔0、e↔c…</translation>
    </message>
    <message>
      <source>LaTeX escapes: accents (\'e), special characters (\&amp;), math ($\alpha$, $\leq$)</source>
      <translation>LaTeX 转义：重音（\'e）、特殊字符（\&amp;）、数学（$\alpha$、$\leq$）</translation>
    </message>
  </context>
  <context>
    <name>RobustnessView</name>
    <message>
      <source>The current text</source>
      <translation>当前文本</translation>
    </message>
    <message>
      <source>perturbation</source>
      <translation>扰动</translation>
    </message>
    <message>
      <source>changed</source>
      <translation>已改动</translation>
    </message>
    <message>
      <source>eligible</source>
      <translation>可改动</translation>
    </message>
    <message>
      <source>mean ×</source>
      <translation>平均 ×</translation>
    </message>
    <message>
      <source>corpus ×</source>
      <translation>语料 ×</translation>
    </message>
    <message>
      <source>{perturbation} — {description}</source>
      <translation>{perturbation} — {description}</translation>
    </message>
    <message>
      <source>Share of the eligible characters (or letter groups, words) that are changed</source>
      <translation>可改动的字符（或字母组、词）中被改动的比例</translation>
    </message>
    <message>
      <source>Seed of the random choices: the same seed gives the same perturbed text</source>
      <translation>随机选择的种子：相同的种子得到相同的扰动文本</translation>
    </message>
    <message>
      <source>The tokenizer whose tokens are shown side by side</source>
      <translation>并排显示其词元的分词器</translation>
    </message>
    <message>
      <source>Perturbation</source>
      <translation>扰动</translation>
    </message>
    <message>
      <source>Rate</source>
      <translation>比例</translation>
    </message>
    <message>
      <source>Seed</source>
      <translation>种子</translation>
    </message>
    <message>
      <source>Tokenizer</source>
      <translation>分词器</translation>
    </message>
    <message>
      <source>Original</source>
      <translation>原文</translation>
    </message>
    <message>
      <source>Perturbed</source>
      <translation>扰动后</translation>
    </message>
    <message>
      <source>tokenizer</source>
      <translation>分词器</translation>
    </message>
    <message>
      <source>original</source>
      <translation>原文</translation>
    </message>
    <message>
      <source>perturbed</source>
      <translation>扰动后</translation>
    </message>
    <message>
      <source>change</source>
      <translation>变化</translation>
    </message>
    <message>
      <source>Tokens of this text, every tokenizer</source>
      <translation>本文本在各分词器下的词元数</translation>
    </message>
    <message>
      <source>What the corpus run measures: the current text or a text file</source>
      <translation>语料运行的测量对象：当前文本或一个文本文件</translation>
    </message>
    <message>
      <source>File…</source>
      <translation>文件…</translation>
    </message>
    <message>
      <source>Run on the corpus</source>
      <translation>在语料上运行</translation>
    </message>
    <message>
      <source>Every perturbation at this rate and seed, every tokenizer: the mean token-count inflation over the pieces (paragraphs, lines) of the text</source>
      <translation>以此比例和种子运行每种扰动、每个分词器：文本各片段（段落、行）上词元数的平均膨胀</translation>
    </message>
    <message>
      <source>Copy table</source>
      <translation>复制表格</translation>
    </message>
    <message>
      <source>Copy the table as Markdown</source>
      <translation>以 Markdown 复制表格</translation>
    </message>
    <message>
      <source>Run the corpus analysis to compare every perturbation.</source>
      <translation>运行语料分析以比较每种扰动。</translation>
    </message>
    <message>
      <source>Corpus</source>
      <translation>语料</translation>
    </message>
    <message>
      <source>Mean token-count inflation</source>
      <translation>平均词元数膨胀</translation>
    </message>
    <message>
      <source>Mean token-count inflation: perturbed / original tokens, averaged over the pieces of the text (1 = no change)</source>
      <translation>平均词元数膨胀：扰动后 / 原文词元数，按文本各片段平均（1 = 无变化）</translation>
    </message>
    <message>
      <source>× tokens (1 = no change)</source>
      <translation>× 词元数（1 = 无变化）</translation>
    </message>
    <message>
      <source>No tokenizer to analyse: open one, or add some to the Compare tab.</source>
      <translation>没有可分析的分词器：请打开一个，或在对比标签页中添加。</translation>
    </message>
    <message>
      <source>the text is empty</source>
      <translation>文本为空</translation>
    </message>
    <message>
      <source>The analysis failed: {reason}</source>
      <translation>分析失败：{reason}</translation>
    </message>
    <message>
      <source>Perturbing the current text and encoding it with 1 tokenizer…</source>
      <translation>正在扰动当前文本并用 1 个分词器编码…</translation>
    </message>
    <message>
      <source>Perturbing the current text and encoding it with {n} tokenizers…</source>
      <translation>正在扰动当前文本并用 {n} 个分词器编码…</translation>
    </message>
    <message>
      <source>Perturbing {file} and encoding it with 1 tokenizer…</source>
      <translation>正在扰动 {file} 并用 1 个分词器编码…</translation>
    </message>
    <message>
      <source>Perturbing {file} and encoding it with {n} tokenizers…</source>
      <translation>正在扰动 {file} 并用 {n} 个分词器编码…</translation>
    </message>
    <message>
      <source>Robustness</source>
      <translation>鲁棒性</translation>
    </message>
    <message>
      <source>No tokenizer.</source>
      <translation>没有分词器。</translation>
    </message>
    <message>
      <source>No text.</source>
      <translation>没有文本。</translation>
    </message>
    <message>
      <source>{changed} of {eligible} eligible places changed (the first {chars} characters). A red bar marks a token that touches a change.</source>
      <translation>{eligible} 处可改动位置中改动了 {changed} 处（前 {chars} 个字符）。红条标出涉及改动的词元。</translation>
    </message>
    <message>
      <source>{changed} of {eligible} eligible places changed. A red bar marks a token that touches a change.</source>
      <translation>{eligible} 处可改动位置中改动了 {changed} 处。红条标出涉及改动的词元。</translation>
    </message>
    <message>
      <source>Could not perturb the text: {reason}</source>
      <translation>无法扰动文本：{reason}</translation>
    </message>
    <message>
      <source>Perturbing…</source>
      <translation>正在扰动…</translation>
    </message>
    <message>
      <source>Original — {tokens} tokens</source>
      <translation>原文 — {tokens} 个词元</translation>
    </message>
    <message>
      <source>{perturbation} — {tokens} tokens, {change}</source>
      <translation>{perturbation} — {tokens} 个词元，{change}</translation>
    </message>
    <message>
      <source>Text to measure the perturbations on</source>
      <translation>用于测量扰动的文本</translation>
    </message>
    <message>
      <source>Text files (*.txt *.md *.rst *.py *.json);;All files (*)</source>
      <translation>文本文件 (*.txt *.md *.rst *.py *.json);;所有文件 (*)</translation>
    </message>
    <message>
      <source>, </source>
      <translation>，</translation>
    </message>
    <message>
      <source>{chars} characters in {pieces} pieces, rate {rate}, seed {seed}, {seconds} s. Original tokens: {originals}. Bars: perturbed / original tokens, averaged over the pieces (1 = no change).</source>
      <translation>{chars} 个字符，{pieces} 个片段，比例 {rate}，种子 {seed}，用时 {seconds} 秒。原文词元数：{originals}。条形：扰动后 / 原文词元数，按片段平均（1 = 无变化）。</translation>
    </message>
  </context>
  <context>
    <name>RoundTripPanel</name>
    <message>
      <source>at</source>
      <translation>位置</translation>
    </message>
    <message>
      <source>original</source>
      <translation>原文</translation>
    </message>
    <message>
      <source>normalized</source>
      <translation>规范化后</translation>
    </message>
    <message>
      <source>decoded</source>
      <translation>解码后</translation>
    </message>
    <message>
      <source>kind</source>
      <translation>类型</translation>
    </message>
    <message>
      <source>Decode differences</source>
      <translation>解码差异</translation>
    </message>
    <message>
      <source>Normalizer changes</source>
      <translation>规范化器的改动</translation>
    </message>
    <message>
      <source>case</source>
      <translation>大小写</translation>
    </message>
    <message>
      <source>accents</source>
      <translation>重音符号</translation>
    </message>
    <message>
      <source>unicode form</source>
      <translation>Unicode 形式</translation>
    </message>
    <message>
      <source>whitespace</source>
      <translation>空白</translation>
    </message>
    <message>
      <source>space added</source>
      <translation>添加了空格</translation>
    </message>
    <message>
      <source>spacing</source>
      <translation>间距</translation>
    </message>
    <message>
      <source>removed</source>
      <translation>被删除</translation>
    </message>
    <message>
      <source>replaced</source>
      <translation>被替换</translation>
    </message>
    <message>
      <source>normalizer</source>
      <translation>规范化器</translation>
    </message>
    <message>
      <source>unknown token</source>
      <translation>未知词元</translation>
    </message>
    <message>
      <source>special token</source>
      <translation>特殊词元</translation>
    </message>
    <message>
      <source>collapsed spaces</source>
      <translation>空格被合并</translation>
    </message>
    <message>
      <source>added spaces</source>
      <translation>添加的空格</translation>
    </message>
    <message>
      <source>dropped</source>
      <translation>丢失</translation>
    </message>
    <message>
      <source>other</source>
      <translation>其他</translation>
    </message>
    <message>
      <source>none</source>
      <translation>无</translation>
    </message>
    <message>
      <source>{kind} ({detail})</source>
      <translation>{kind}（{detail}）</translation>
    </message>
    <message>
      <source>decode(encode(text)) == text ({length} characters, {tokens} tokens); {changes} normalizer changes</source>
      <translation>decode(encode(text)) == text（{length} 个字符，{tokens} 个词元）；规范化器改动 {changes} 处</translation>
    </message>
    <message>
      <source>{count} decode differences over {changed} of {length} characters ({tokens} tokens); {changes} normalizer changes</source>
      <translation>{count} 处解码差异，涉及 {length} 个字符中的 {changed} 个（{tokens} 个词元）；规范化器改动 {changes} 处</translation>
    </message>
    <message>
      <source>Open a tokenizer and type some text.</source>
      <translation>请打开一个分词器并输入一些文本。</translation>
    </message>
    <message>
      <source>kinds</source>
      <translation>类型</translation>
    </message>
    <message>
      <source>where (%)</source>
      <translation>位置（%）</translation>
    </message>
    <message>
      <source>The round trip failed: {reason}</source>
      <translation>往返检查失败：{reason}</translation>
    </message>
    <message>
      <source>Decoding {count} characters…</source>
      <translation>正在解码 {count} 个字符…</translation>
    </message>
    <message>
      <source>{summary} · {seconds} s</source>
      <translation>{summary} · {seconds} 秒</translation>
    </message>
    <message>
      <source>none: decode gives the text back</source>
      <translation>无：解码得到原文</translation>
    </message>
    <message>
      <source>none: the normalizer keeps the text</source>
      <translation>无：规范化器未改动文本</translation>
    </message>
    <message>
      <source>{count} differences</source>
      <translation>{count} 处差异</translation>
    </message>
    <message>
      <source>{count} changes</source>
      <translation>{count} 处改动</translation>
    </message>
    <message>
      <source>first {first} of {count} differences</source>
      <translation>{count} 处差异中的前 {first} 处</translation>
    </message>
    <message>
      <source>first {first} of {count} changes</source>
      <translation>{count} 处改动中的前 {first} 处</translation>
    </message>
  </context>
  <context>
    <name>RunOnBox</name>
    <message>
      <source>this machine</source>
      <translation>本机</translation>
    </message>
    <message>
      <source>a Dask cluster at</source>
      <translation>Dask 集群，地址</translation>
    </message>
    <message>
      <source>local worker processes</source>
      <translation>本地工作进程</translation>
    </message>
    <message>
      <source>Add a corpus URL</source>
      <translation>添加语料 URL</translation>
    </message>
    <message>
      <source>A file, folder or glob in object storage, read by the cluster's workers with fsspec
(e.g. s3://bucket/corpus/*.txt; credentials from each machine's environment):</source>
      <translation>对象存储中的文件、文件夹或通配符，由集群的工作进程用 fsspec 读取
（例如 s3://bucket/corpus/*.txt；凭据取自各台机器的环境）：</translation>
    </message>
    <message>
      <source>{url} is read by a Dask cluster's workers: choose Run on a Dask cluster, or local worker processes</source>
      <translation>{url} 由 Dask 集群的工作进程读取：请把“运行于”选为 Dask 集群或本地工作进程</translation>
    </message>
    <message>
      <source>Where the counting runs: here, or on a Dask cluster</source>
      <translation>计数在哪里运行：本机，或 Dask 集群</translation>
    </message>
    <message>
      <source>tcp://host:8786</source>
      <translation>tcp://主机:8786</translation>
    </message>
    <message>
      <source>The address of the Dask scheduler</source>
      <translation>Dask 调度器的地址</translation>
    </message>
    <message>
      <source>Worker processes started on this machine for the run (a Dask LocalCluster)</source>
      <translation>为本次运行在本机启动的工作进程（Dask LocalCluster）</translation>
    </message>
    <message>
      <source>Run on</source>
      <translation>运行于</translation>
    </message>
    <message>
      <source>Dask distributed is not installed: {command}</source>
      <translation>未安装 Dask distributed：{command}</translation>
    </message>
    <message>
      <source>Dask dashboard: {link}</source>
      <translation>Dask 仪表板：{link}</translation>
    </message>
  </context>
  <context>
    <name>Session</name>
    <message>
      <source>{name} (trained {when})</source>
      <translation>{name}（训练于 {when}）</translation>
    </message>
    <message>
      <source>{name} (edited {when})</source>
      <translation>{name}（编辑于 {when}）</translation>
    </message>
    <message>
      <source>no format tokviz writes holds this tokenizer exactly: {reasons}</source>
      <translation>tokviz 能写出的格式都无法准确容纳此分词器：{reasons}</translation>
    </message>
    <message>
      <source>Quit tokviz</source>
      <translation>退出 tokviz</translation>
    </message>
    <message>
      <source>1 tokenizer was trained or edited and not exported.</source>
      <translation>有 1 个分词器经过训练或编辑但尚未导出。</translation>
    </message>
    <message>
      <source>{count} tokenizers were trained or edited and not exported.</source>
      <translation>有 {count} 个分词器经过训练或编辑但尚未导出。</translation>
    </message>
    <message>
      <source>Kept, they reopen with this session and stay in tokviz's data folder until you export or discard them.</source>
      <translation>保留后，它们会随本会话重新打开，并一直存放在 tokviz 的数据文件夹中，直到你导出或丢弃它们。</translation>
    </message>
    <message>
      <source>Keep and quit</source>
      <translation>保留并退出</translation>
    </message>
    <message>
      <source>Discard and quit</source>
      <translation>丢弃并退出</translation>
    </message>
  </context>
  <context>
    <name>StatsView</name>
    <message>
      <source>Load a tokenizer first</source>
      <translation>请先加载分词器</translation>
    </message>
    <message>
      <source>files</source>
      <translation>文件</translation>
    </message>
    <message>
      <source>text</source>
      <translation>文本</translation>
    </message>
    <message>
      <source>characters</source>
      <translation>字符</translation>
    </message>
    <message>
      <source>tokens</source>
      <translation>词元</translation>
    </message>
    <message>
      <source>bytes per token</source>
      <translation>每词元字节数</translation>
    </message>
    <message>
      <source>characters per token</source>
      <translation>每词元字符数</translation>
    </message>
    <message>
      <source>tokens per word (fertility)</source>
      <translation>每词词元数</translation>
    </message>
    <message>
      <source>Han characters per token</source>
      <translation>每词元汉字数</translation>
    </message>
    <message>
      <source>unknown tokens</source>
      <translation>未知词元</translation>
    </message>
    <message>
      <source>byte-fallback tokens</source>
      <translation>字节回退词元</translation>
    </message>
    <message>
      <source>vocabulary used</source>
      <translation>用到的词表</translation>
    </message>
    <message>
      <source>vocabulary utilisation</source>
      <translation>词表利用率</translation>
    </message>
    <message>
      <source>never-used tokens</source>
      <translation>从未用到的词元</translation>
    </message>
    <message>
      <source>Shannon entropy (bits)</source>
      <translation>香农熵（比特）</translation>
    </message>
    <message>
      <source>Shannon efficiency</source>
      <translation>香农效率</translation>
    </message>
    <message>
      <source>Rényi entropy, α = 2.5 (bits)</source>
      <translation>Rényi 熵，α = 2.5（比特）</translation>
    </message>
    <message>
      <source>Rényi efficiency</source>
      <translation>Rényi 效率</translation>
    </message>
    <message>
      <source>Gini coefficient</source>
      <translation>基尼系数</translation>
    </message>
    <message>
      <source>time (s)</source>
      <translation>耗时（秒）</translation>
    </message>
    <message>
      <source>throughput (MB/s)</source>
      <translation>吞吐量（MB/s）</translation>
    </message>
    <message>
      <source>tokenizer</source>
      <translation>分词器</translation>
    </message>
    <message>
      <source>vocab size</source>
      <translation>词表大小</translation>
    </message>
    <message>
      <source>{corpus} Han chars/token</source>
      <translation>{corpus} 每词元汉字数</translation>
    </message>
    <message>
      <source>{corpus} chars/token</source>
      <translation>{corpus} 每词元字符数</translation>
    </message>
    <message>
      <source>{corpus} tokens</source>
      <translation>{corpus} 词元数</translation>
    </message>
    <message>
      <source>{corpus} time (s)</source>
      <translation>{corpus} 耗时（秒）</translation>
    </message>
    <message>
      <source>{mb:.2f} MB</source>
      <translation>{mb:.2f} MB</translation>
    </message>
    <message>
      <source>Files and folders to measure on (folders: their text files)</source>
      <translation>用于统计的文件和文件夹（文件夹：其中的文本文件）</translation>
    </message>
    <message>
      <source>Add files…</source>
      <translation>添加文件…</translation>
    </message>
    <message>
      <source>Add folder…</source>
      <translation>添加文件夹…</translation>
    </message>
    <message>
      <source>Add URL…</source>
      <translation>添加 URL…</translation>
    </message>
    <message>
      <source>A corpus in object storage (s3://bucket/corpus/*.txt), read on a Dask cluster</source>
      <translation>对象存储中的语料（s3://bucket/corpus/*.txt），在 Dask 集群上读取</translation>
    </message>
    <message>
      <source>Remove</source>
      <translation>移除</translation>
    </message>
    <message>
      <source>Measure</source>
      <translation>统计</translation>
    </message>
    <message>
      <source>Add files or folders, then Measure.</source>
      <translation>添加文件或文件夹，然后点“统计”。</translation>
    </message>
    <message>
      <source>metric</source>
      <translation>指标</translation>
    </message>
    <message>
      <source>value</source>
      <translation>数值</translation>
    </message>
    <message>
      <source>Zipf: token frequency by rank</source>
      <translation>齐夫分布：各名次词元的频次</translation>
    </message>
    <message>
      <source>rank</source>
      <translation>名次</translation>
    </message>
    <message>
      <source>count</source>
      <translation>次数</translation>
    </message>
    <message>
      <source>Add tokenizer…</source>
      <translation>添加分词器…</translation>
    </message>
    <message>
      <source>Compare</source>
      <translation>对比</translation>
    </message>
    <message>
      <source>Compare the tokenizers on the corpus files, grouped by name</source>
      <translation>在语料文件上对比各分词器（按文件名分组）</translation>
    </message>
    <message>
      <source>Copy CSV</source>
      <translation>复制 CSV</translation>
    </message>
    <message>
      <source>Copy Markdown</source>
      <translation>复制 Markdown</translation>
    </message>
    <message>
      <source>Save…</source>
      <translation>保存…</translation>
    </message>
    <message>
      <source>Corpus</source>
      <translation>语料</translation>
    </message>
    <message>
      <source>Figures</source>
      <translation>数据</translation>
    </message>
    <message>
      <source>Zipf plot</source>
      <translation>齐夫图</translation>
    </message>
    <message>
      <source>Tokenizers to compare with the current one (on the corpus files, grouped by name)</source>
      <translation>与当前分词器对比的分词器（在语料文件上，按文件名分组）</translation>
    </message>
    <message>
      <source>Corpus metrics</source>
      <translation>语料指标</translation>
    </message>
    <message>
      <source>Compare tokenizers</source>
      <translation>对比分词器</translation>
    </message>
    <message>
      <source>Add corpus files</source>
      <translation>添加语料文件</translation>
    </message>
    <message>
      <source>Add a corpus folder</source>
      <translation>添加语料文件夹</translation>
    </message>
    <message>
      <source>Add a tokenizer to compare</source>
      <translation>添加要对比的分词器</translation>
    </message>
    <message>
      <source>Load a tokenizer and add files or folders first.</source>
      <translation>请先加载分词器，并添加文件或文件夹。</translation>
    </message>
    <message>
      <source>Give the address of the Dask scheduler (tcp://host:port).</source>
      <translation>请填写 Dask 调度器的地址（tcp://host:port）。</translation>
    </message>
    <message>
      <source>Measured 1 file, {mb:.2f} MB.</source>
      <translation>已统计 1 个文件，{mb:.2f} MB。</translation>
    </message>
    <message>
      <source>Measured {files:,} files, {mb:.2f} MB.</source>
      <translation>已统计 {files:,} 个文件，{mb:.2f} MB。</translation>
    </message>
    <message>
      <source>Measuring…</source>
      <translation>正在统计…</translation>
    </message>
    <message>
      <source>Connecting to the Dask scheduler at {address}…</source>
      <translation>正在连接 {address} 上的 Dask 调度器…</translation>
    </message>
    <message>
      <source>Starting {n} worker process(es)…</source>
      <translation>正在启动 {n} 个工作进程…</translation>
    </message>
    <message>
      <source>Compare runs on this machine and cannot read {url}: measure it with Run on a Dask cluster</source>
      <translation>对比在本机运行，无法读取 {url}：请将“运行于”选为 Dask 集群后测量</translation>
    </message>
    <message>
      <source>current</source>
      <translation>当前</translation>
    </message>
    <message>
      <source>Compared {n} tokenizers.</source>
      <translation>已对比 {n} 个分词器。</translation>
    </message>
    <message>
      <source>Comparing…</source>
      <translation>正在对比…</translation>
    </message>
    <message>
      <source>Failed: {error}</source>
      <translation>失败：{error}</translation>
    </message>
    <message>
      <source>Save the comparison</source>
      <translation>保存对比结果</translation>
    </message>
    <message>
      <source>Markdown (*.md);;CSV (*.csv)</source>
      <translation>Markdown (*.md);;CSV (*.csv)</translation>
    </message>
  </context>
  <context>
    <name>Status</name>
    <message>
      <source>{n} token</source>
      <translation>{n} 个词元</translation>
    </message>
    <message>
      <source>{n} tokens</source>
      <translation>{n} 个词元</translation>
    </message>
    <message>
      <source>{n} char</source>
      <translation>{n} 个字符</translation>
    </message>
    <message>
      <source>{n} chars</source>
      <translation>{n} 个字符</translation>
    </message>
    <message>
      <source>{n} byte</source>
      <translation>{n} 字节</translation>
    </message>
    <message>
      <source>{n} bytes</source>
      <translation>{n} 字节</translation>
    </message>
    <message>
      <source>Cancel</source>
      <translation>取消</translation>
    </message>
    <message>
      <source>Stop encoding the whole file (the preview stays)</source>
      <translation>停止编码整个文件（预览保留）</translation>
    </message>
  </context>
  <context>
    <name>TextDocument</name>
    <message>
      <source>untitled</source>
      <translation>未命名</translation>
    </message>
    <message>
      <source>sample text</source>
      <translation>示例文本</translation>
    </message>
    <message>
      <source>character {index} of the text is a lone surrogate ({code}), which UTF-8 cannot hold; remove it to save</source>
      <translation>文本的第 {index} 个字符是孤立代理项（{code}），UTF-8 无法表示；请删除后再保存</translation>
    </message>
    <message>
      <source>Unsaved conversation</source>
      <translation>未保存的对话</translation>
    </message>
    <message>
      <source>The conversation “{name}” has changes that are not saved.</source>
      <translation>对话“{name}”有未保存的更改。</translation>
    </message>
    <message>
      <source>Save them before quitting?</source>
      <translation>退出前保存吗？</translation>
    </message>
    <message>
      <source>Save them before the conversation is replaced?</source>
      <translation>替换对话前保存吗？</translation>
    </message>
    <message>
      <source>Unsaved text</source>
      <translation>未保存的文本</translation>
    </message>
    <message>
      <source>The text “{name}” has changes that are not saved.</source>
      <translation>文本“{name}”有未保存的更改。</translation>
    </message>
    <message>
      <source>Save them before the text is replaced?</source>
      <translation>替换文本前保存吗？</translation>
    </message>
    <message>
      <source>Text files</source>
      <translation>文本文件</translation>
    </message>
    <message>
      <source>All files</source>
      <translation>所有文件</translation>
    </message>
    <message>
      <source>Save text as</source>
      <translation>文本另存为</translation>
    </message>
    <message>
      <source>Saving {name}…</source>
      <translation>正在保存 {name}…</translation>
    </message>
    <message>
      <source>cannot write the file: {reason}</source>
      <translation>无法写入文件：{reason}</translation>
    </message>
    <message>
      <source>The text was not saved</source>
      <translation>文本未保存</translation>
    </message>
    <message>
      <source>Could not save text</source>
      <translation>无法保存文本</translation>
    </message>
    <message>
      <source>Saved {name} ({size} bytes)</source>
      <translation>已保存 {name}（{size} 字节）</translation>
    </message>
    <message>
      <source>Saved {name}; the text changed meanwhile, so it was not replaced</source>
      <translation>已保存 {name}；其间文本已更改，因此未被替换</translation>
    </message>
  </context>
  <context>
    <name>TextEditor</name>
    <message>
      <source>Type or paste text here, or drop a text file…</source>
      <translation>在此输入或粘贴文本，或拖入文本文件…</translation>
    </message>
  </context>
  <context>
    <name>TextLoading</name>
    <message>
      <source>Could not open text</source>
      <translation>无法打开文本</translation>
    </message>
  </context>
  <context>
    <name>TokenCategory</name>
    <message>
      <source>Latin</source>
      <translation>拉丁文</translation>
    </message>
    <message>
      <source>CJK</source>
      <translation>中日韩</translation>
    </message>
    <message>
      <source>Hangul</source>
      <translation>韩文</translation>
    </message>
    <message>
      <source>Cyrillic</source>
      <translation>西里尔文</translation>
    </message>
    <message>
      <source>Greek</source>
      <translation>希腊文</translation>
    </message>
    <message>
      <source>Arabic</source>
      <translation>阿拉伯文</translation>
    </message>
    <message>
      <source>Hebrew</source>
      <translation>希伯来文</translation>
    </message>
    <message>
      <source>Devanagari</source>
      <translation>天城文</translation>
    </message>
    <message>
      <source>Thai</source>
      <translation>泰文</translation>
    </message>
    <message>
      <source>other letters</source>
      <translation>其他字母</translation>
    </message>
    <message>
      <source>mixed scripts</source>
      <translation>混合文字</translation>
    </message>
    <message>
      <source>digits</source>
      <translation>数字</translation>
    </message>
    <message>
      <source>punctuation</source>
      <translation>标点</translation>
    </message>
    <message>
      <source>whitespace</source>
      <translation>空白</translation>
    </message>
    <message>
      <source>symbols</source>
      <translation>符号</translation>
    </message>
    <message>
      <source>partial UTF-8</source>
      <translation>不完整 UTF-8</translation>
    </message>
    <message>
      <source>byte piece</source>
      <translation>字节片段</translation>
    </message>
    <message>
      <source>control</source>
      <translation>控制</translation>
    </message>
    <message>
      <source>user-defined</source>
      <translation>用户定义</translation>
    </message>
    <message>
      <source>special</source>
      <translation>特殊</translation>
    </message>
  </context>
  <context>
    <name>TokenView</name>
    <message>
      <source>(none)</source>
      <translation>（无）</translation>
    </message>
    <message>
      <source>special token</source>
      <translation>特殊词元</translation>
    </message>
    <message>
      <source>part of a UTF-8 character</source>
      <translation>UTF-8 字符的一部分</translation>
    </message>
    <message>
      <source>{start} (empty: added by the post-processor)</source>
      <translation>{start}（空：由后处理器添加）</translation>
    </message>
    <message>
      <source>{start}–{end} (1 char)</source>
      <translation>{start}–{end}（1 个字符）</translation>
    </message>
    <message>
      <source>{start}–{end} ({n} chars)</source>
      <translation>{start}–{end}（{n} 个字符）</translation>
    </message>
    <message>
      <source>id</source>
      <translation>ID</translation>
    </message>
    <message>
      <source>piece</source>
      <translation>片段</translation>
    </message>
    <message>
      <source>text</source>
      <translation>文本</translation>
    </message>
    <message>
      <source>bytes</source>
      <translation>字节</translation>
    </message>
    <message>
      <source>chars</source>
      <translation>字符</translation>
    </message>
    <message>
      <source>source</source>
      <translation>原文</translation>
    </message>
    <message>
      <source>, </source>
      <translation>，</translation>
    </message>
    <message>
      <source>token {k:,} of {n:,}</source>
      <translation>第 {k:,} 个词元，共 {n:,} 个</translation>
    </message>
  </context>
  <context>
    <name>TokenizerLoading</name>
    <message>
      <source>No tokenizer loaded.
Open one with File ▸ Open tokenizer… (Ctrl+O) or drop it here.</source>
      <translation>未加载分词器。
请通过“文件 ▸ 打开分词器…”（Ctrl+O）打开，或将其拖到此处。</translation>
    </message>
    <message>
      <source>Loading {name}…</source>
      <translation>正在加载 {name}…</translation>
    </message>
    <message>
      <source>Loaded {name} in {seconds} s</source>
      <translation>已加载 {name}，耗时 {seconds} 秒</translation>
    </message>
    <message>
      <source>Could not load the tokenizer</source>
      <translation>无法加载分词器</translation>
    </message>
    <message>
      <source>Could not open tokenizer</source>
      <translation>无法打开分词器</translation>
    </message>
    <message>
      <source>no tokenizer</source>
      <translation>无分词器</translation>
    </message>
    <message>
      <source>tokenizer</source>
      <translation>分词器</translation>
    </message>
  </context>
  <context>
    <name>TrainPanel</name>
    <message>
      <source>Byte-level BPE (GPT-2 style)</source>
      <translation>字节级 BPE（GPT-2 风格）</translation>
    </message>
    <message>
      <source>Character BPE (words end in &lt;/w&gt;)</source>
      <translation>字符级 BPE（词以 &lt;/w&gt; 结尾）</translation>
    </message>
    <message>
      <source>WordPiece (BERT style)</source>
      <translation>WordPiece（BERT 风格）</translation>
    </message>
    <message>
      <source>Unigram (sentencepiece style)</source>
      <translation>Unigram（sentencepiece 风格）</translation>
    </message>
    <message>
      <source>Byte-level BPE</source>
      <translation>字节级 BPE</translation>
    </message>
    <message>
      <source>Character BPE</source>
      <translation>字符级 BPE</translation>
    </message>
    <message>
      <source>separate</source>
      <translation>独立符号</translation>
    </message>
    <message>
      <source>glued</source>
      <translation>粘在末字符上</translation>
    </message>
    <message>
      <source>Count of each new merge</source>
      <translation>每条新合并的次数</translation>
    </message>
    <message>
      <source>merge</source>
      <translation>合并</translation>
    </message>
    <message>
      <source>count</source>
      <translation>次数</translation>
    </message>
    <message>
      <source>Tokens learned against time</source>
      <translation>已学到的词元数随时间变化</translation>
    </message>
    <message>
      <source>tokens</source>
      <translation>词元数</translation>
    </message>
    <message>
      <source>EM objective (log-likelihood)</source>
      <translation>EM 目标函数（对数似然）</translation>
    </message>
    <message>
      <source>EM step</source>
      <translation>EM 步</translation>
    </message>
    <message>
      <source>log-likelihood</source>
      <translation>对数似然</translation>
    </message>
    <message>
      <source>Pieces after each pruning round</source>
      <translation>每轮剪枝后的片段数</translation>
    </message>
    <message>
      <source>round (0: seeds)</source>
      <translation>轮次（0：种子）</translation>
    </message>
    <message>
      <source>pieces</source>
      <translation>片段数</translation>
    </message>
    <message>
      <source>time (ms)</source>
      <translation>时间（毫秒）</translation>
    </message>
    <message>
      <source>time (s)</source>
      <translation>时间（秒）</translation>
    </message>
    <message>
      <source>Add files…</source>
      <translation>添加文件…</translation>
    </message>
    <message>
      <source>Add folder…</source>
      <translation>添加文件夹…</translation>
    </message>
    <message>
      <source>Add URL…</source>
      <translation>添加 URL…</translation>
    </message>
    <message>
      <source>Training text in object storage (s3://bucket/corpus/*.txt), read on a Dask cluster</source>
      <translation>对象存储中的训练文本（s3://bucket/corpus/*.txt），在 Dask 集群上读取</translation>
    </message>
    <message>
      <source>Remove</source>
      <translation>移除</translation>
    </message>
    <message>
      <source>Split pattern (byte-level BPE): a known name or a regex</source>
      <translation>切分模式（字节级 BPE）：已知的名称或正则表达式</translation>
    </message>
    <message>
      <source>Character BPE: &lt;/w&gt; as a symbol of its own (Sennrich) or glued to the last character (HF tokenizers)</source>
      <translation>字符级 BPE：&lt;/w&gt; 作为独立符号（Sennrich），或粘在词的最后一个字符上（HF tokenizers）</translation>
    </message>
    <message>
      <source>HF tokenizers: lowest ids</source>
      <translation>HF tokenizers：ID 最小者</translation>
    </message>
    <message>
      <source>minbpe: first in the text</source>
      <translation>minbpe：文本中最先出现者</translation>
    </message>
    <message>
      <source>Which pair is merged when several occur equally often: HF tokenizers' rule or minbpe's (minbpe's is slower on a big corpus)</source>
      <translation>多个词元对出现次数相同时合并哪一个：按 HF tokenizers 的规则或 minbpe 的规则（minbpe 的规则在大语料上较慢）</translation>
    </message>
    <message>
      <source>lower-case the text</source>
      <translation>文本转为小写</translation>
    </message>
    <message>
      <source>Tokens in the trained vocabulary, everything included</source>
      <translation>训练所得词表中的词元数（包括所有词元）</translation>
    </message>
    <message>
      <source>A pair or piece must occur this often to be learned</source>
      <translation>词元对或片段至少出现这么多次才会被学到</translation>
    </message>
    <message>
      <source>Once the corpus is counted, words seen fewer times are dropped before learning (1: keep all; bounds memory on a big corpus)</source>
      <translation>语料统计完后，出现次数少于此值的词在学习前被丢弃（1：全部保留；可限制大语料的内存占用）</translation>
    </message>
    <message>
      <source>Special tokens (comma-separated), ids 0.. in this order</source>
      <translation>特殊词元（逗号分隔），按此顺序占用 ID 0..</translation>
    </message>
    <message>
      <source>User-defined symbols: always one token, never split</source>
      <translation>用户自定义符号：始终为一个词元，从不拆分</translation>
    </message>
    <message>
      <source>Extra special tokens named &lt;|reserved_special_token_N|&gt;</source>
      <translation>额外的特殊词元，名为 &lt;|reserved_special_token_N|&gt;</translation>
    </message>
    <message>
      <source>every digit its own pre-token</source>
      <translation>每个数字单独作为预分词片段</translation>
    </message>
    <message>
      <source>Longest token in characters (bytes for byte-level BPE); 0: no limit</source>
      <translation>词元的最大长度，以字符计（字节级 BPE 以字节计）；0：不限</translation>
    </message>
    <message>
      <source>Share of the text's characters covered; the rarest others become unknown</source>
      <translation>覆盖文本字符的比例；其余最罕见的字符成为未知词元</translation>
    </message>
    <message>
      <source>unknown characters as &lt;0xNN&gt; bytes</source>
      <translation>未知字符用 &lt;0xNN&gt; 字节表示</translation>
    </message>
    <message>
      <source>Characters outside the alphabet become &lt;0xNN&gt; byte tokens instead of unknown</source>
      <translation>字母表之外的字符变成 &lt;0xNN&gt; 字节词元，而不是未知词元</translation>
    </message>
    <message>
      <source>Characters always in the vocabulary (typed together, e.g. abc)</source>
      <translation>始终在词表中的字符（连写，如 abc）</translation>
    </message>
    <message>
      <source>Keep at most this many characters (0: all)</source>
      <translation>最多保留这么多字符（0：全部）</translation>
    </message>
    <message>
      <source>runs of white space count as one</source>
      <translation>连续空白算作一个</translation>
    </message>
    <message>
      <source>Runs of white space count as one space</source>
      <translation>连续的空白算作一个空格</translation>
    </message>
    <message>
      <source>Round the vocabulary up with reserved tokens to a multiple of this (64, 128...; 0: no rounding)</source>
      <translation>用保留词元把词表补齐到此数的倍数（64、128…；0：不补齐）</translation>
    </message>
    <message>
      <source>Worker threads for counting</source>
      <translation>用于统计的工作线程数</translation>
    </message>
    <message>
      <source>none</source>
      <translation>无</translation>
    </message>
    <message>
      <source>Algorithm</source>
      <translation>算法</translation>
    </message>
    <message>
      <source>Run on</source>
      <translation>运行于</translation>
    </message>
    <message>
      <source>Split pattern</source>
      <translation>切分模式</translation>
    </message>
    <message>
      <source>End of word</source>
      <translation>词尾</translation>
    </message>
    <message>
      <source>Equal counts</source>
      <translation>次数相同时</translation>
    </message>
    <message>
      <source>Vocabulary size</source>
      <translation>词表大小</translation>
    </message>
    <message>
      <source>Min frequency</source>
      <translation>最小频次</translation>
    </message>
    <message>
      <source>Min word count</source>
      <translation>最小词频</translation>
    </message>
    <message>
      <source>Special tokens</source>
      <translation>特殊词元</translation>
    </message>
    <message>
      <source>User symbols</source>
      <translation>用户符号</translation>
    </message>
    <message>
      <source>Reserved tokens</source>
      <translation>保留词元</translation>
    </message>
    <message>
      <source>Pad to multiple of</source>
      <translation>补齐到倍数</translation>
    </message>
    <message>
      <source>Max token length</source>
      <translation>最大词元长度</translation>
    </message>
    <message>
      <source>Character coverage</source>
      <translation>字符覆盖率</translation>
    </message>
    <message>
      <source>Initial alphabet</source>
      <translation>初始字母表</translation>
    </message>
    <message>
      <source>Limit alphabet</source>
      <translation>字母表上限</translation>
    </message>
    <message>
      <source>Threads</source>
      <translation>线程数</translation>
    </message>
    <message>
      <source>Train</source>
      <translation>训练</translation>
    </message>
    <message>
      <source>Cancel</source>
      <translation>取消</translation>
    </message>
    <message>
      <source>Export…</source>
      <translation>导出…</translation>
    </message>
    <message>
      <source>ready</source>
      <translation>就绪</translation>
    </message>
    <message>
      <source>Add training files, choose the parameters, then Train.</source>
      <translation>添加训练文件，选择参数，然后点击“训练”。</translation>
    </message>
    <message>
      <source>Training files</source>
      <translation>训练文件</translation>
    </message>
    <message>
      <source>A folder of training text</source>
      <translation>训练文本所在文件夹</translation>
    </message>
    <message>
      <source>no training files: add files or folders</source>
      <translation>没有训练文件：请添加文件或文件夹</translation>
    </message>
    <message>
      <source>give the address of the Dask scheduler (tcp://host:port)</source>
      <translation>请给出 Dask 调度器的地址（tcp://host:port）</translation>
    </message>
    <message>
      <source>Connecting to the Dask scheduler at {address}…</source>
      <translation>正在连接 {address} 上的 Dask 调度器…</translation>
    </message>
    <message>
      <source>Starting {count} worker process(es)…</source>
      <translation>正在启动 {count} 个工作进程…</translation>
    </message>
    <message>
      <source>done</source>
      <translation>完成</translation>
    </message>
    <message>
      <source>Trained a {model} of {size} tokens in {seconds} s.</source>
      <translation>已训练出 {size} 个词元的 {model}，用时 {seconds} 秒。</translation>
    </message>
    <message>
      <source>cancelled</source>
      <translation>已取消</translation>
    </message>
    <message>
      <source>Cancelled.</source>
      <translation>已取消。</translation>
    </message>
    <message>
      <source>failed</source>
      <translation>失败</translation>
    </message>
    <message>
      <source>Training failed: {reason}</source>
      <translation>训练失败：{reason}</translation>
    </message>
    <message>
      <source>Training on 1 file…</source>
      <translation>正在用 1 个文件训练…</translation>
    </message>
    <message>
      <source>Training on {count} files…</source>
      <translation>正在用 {count} 个文件训练…</translation>
    </message>
    <message>
      <source>nothing trained yet</source>
      <translation>尚未训练</translation>
    </message>
    <message>
      <source>Export the trained tokenizer</source>
      <translation>导出训练好的分词器</translation>
    </message>
    <message>
      <source>HF tokenizer.json (*.json);;WordPiece vocab.txt (*.txt);;tiktoken (*.tiktoken);;sentencepiece or minbpe (*.model);;vocabulary listing (*.tsv *.csv);;All files (*)</source>
      <translation>HF tokenizer.json (*.json);;WordPiece vocab.txt (*.txt);;tiktoken (*.tiktoken);;sentencepiece 或 minbpe (*.model);;词表清单 (*.tsv *.csv);;所有文件 (*)</translation>
    </message>
    <message>
      <source>Written: {path}</source>
      <translation>已写入：{path}</translation>
    </message>
  </context>
  <context>
    <name>UnigramPage</name>
    <message>
      <source>piece</source>
      <translation>子词</translation>
    </message>
    <message>
      <source>probability</source>
      <translation>概率</translation>
    </message>
    <message>
      <source>log probability</source>
      <translation>对数概率</translation>
    </message>
    <message>
      <source>word</source>
      <translation>词</translation>
    </message>
    <message>
      <source>count</source>
      <translation>次数</translation>
    </message>
    <message>
      <source>best segmentation</source>
      <translation>最佳切分</translation>
    </message>
    <message>
      <source>Vocabulary</source>
      <translation>词表</translation>
    </message>
    <message>
      <source>Expected counts</source>
      <translation>期望计数</translation>
    </message>
    <message>
      <source>Best (Viterbi) segmentation of each word</source>
      <translation>每个词的最佳（维特比）切分</translation>
    </message>
    <message>
      <source>Before training: {words} distinct words; {steps} steps to come</source>
      <translation>训练前：{words} 个不同的词；接下来有 {steps} 步</translation>
    </message>
    <message>
      <source>Vocabulary: {count} pieces</source>
      <translation>词表：{count} 个子词</translation>
    </message>
    <message>
      <source>Expected counts (E step)</source>
      <translation>期望计数（E 步）</translation>
    </message>
    <message>
      <source>expected count</source>
      <translation>期望计数</translation>
    </message>
    <message>
      <source>note</source>
      <translation>说明</translation>
    </message>
    <message>
      <source>removed</source>
      <translation>已删除</translation>
    </message>
    <message>
      <source>Loss of removing each piece</source>
      <translation>删除每个子词的损失</translation>
    </message>
    <message>
      <source>loss</source>
      <translation>损失</translation>
    </message>
    <message>
      <source>pruned</source>
      <translation>已剪枝</translation>
    </message>
  </context>
  <context>
    <name>UnsavedWork</name>
    <message>
      <source>No tokenizer to export</source>
      <translation>没有可导出的分词器</translation>
    </message>
    <message>
      <source>Open it in the explorer</source>
      <translation>在浏览页中打开</translation>
    </message>
    <message>
      <source>Every tokenizer trained or edited here has been exported</source>
      <translation>在此训练或编辑的分词器均已导出</translation>
    </message>
    <message>
      <source>Trained {name}: it is open in the explorer</source>
      <translation>已训练 {name}：已在浏览页中打开</translation>
    </message>
    <message>
      <source>Vocabulary edited: {count} tokens</source>
      <translation>词表已编辑：{count} 个词元</translation>
    </message>
    <message>
      <source>{name} cannot be kept until exported: {reason}</source>
      <translation>{name} 在导出前无法保留：{reason}</translation>
    </message>
    <message>
      <source>Written: {paths}</source>
      <translation>已写入：{paths}</translation>
    </message>
    <message>
      <source>Discard tokenizer</source>
      <translation>丢弃分词器</translation>
    </message>
    <message>
      <source>Discard {tokenizer}? It was never exported.</source>
      <translation>丢弃 {tokenizer} 吗？它从未导出。</translation>
    </message>
  </context>
  <context>
    <name>VocabCategory</name>
    <message>
      <source>Latin</source>
      <translation>拉丁文</translation>
    </message>
    <message>
      <source>CJK</source>
      <translation>中日韩文字</translation>
    </message>
    <message>
      <source>Hangul</source>
      <translation>韩文</translation>
    </message>
    <message>
      <source>Cyrillic</source>
      <translation>西里尔文</translation>
    </message>
    <message>
      <source>Greek</source>
      <translation>希腊文</translation>
    </message>
    <message>
      <source>Arabic</source>
      <translation>阿拉伯文</translation>
    </message>
    <message>
      <source>Hebrew</source>
      <translation>希伯来文</translation>
    </message>
    <message>
      <source>Devanagari</source>
      <translation>天城文</translation>
    </message>
    <message>
      <source>Thai</source>
      <translation>泰文</translation>
    </message>
    <message>
      <source>other letters</source>
      <translation>其他字母</translation>
    </message>
    <message>
      <source>mixed scripts</source>
      <translation>混合文字</translation>
    </message>
    <message>
      <source>digits</source>
      <translation>数字</translation>
    </message>
    <message>
      <source>punctuation</source>
      <translation>标点</translation>
    </message>
    <message>
      <source>whitespace</source>
      <translation>空白</translation>
    </message>
    <message>
      <source>symbols</source>
      <translation>符号</translation>
    </message>
    <message>
      <source>partial UTF-8</source>
      <translation>不完整的 UTF-8</translation>
    </message>
    <message>
      <source>byte piece</source>
      <translation>字节片段</translation>
    </message>
    <message>
      <source>control</source>
      <translation>控制</translation>
    </message>
    <message>
      <source>user-defined</source>
      <translation>用户定义</translation>
    </message>
    <message>
      <source>special</source>
      <translation>特殊</translation>
    </message>
  </context>
  <context>
    <name>VocabModel</name>
    <message>
      <source>id</source>
      <translation>ID</translation>
    </message>
    <message>
      <source>token</source>
      <translation>词元</translation>
    </message>
    <message>
      <source>text</source>
      <translation>文本</translation>
    </message>
    <message>
      <source>bytes</source>
      <translation>字节</translation>
    </message>
    <message>
      <source>chars</source>
      <translation>字符</translation>
    </message>
    <message>
      <source>category</source>
      <translation>类别</translation>
    </message>
    <message>
      <source>rank / score</source>
      <translation>序号 / 分数</translation>
    </message>
    <message>
      <source>health</source>
      <translation>健康度</translation>
    </message>
  </context>
  <context>
    <name>VocabProxy</name>
    <message>
      <source>bad regex: {error}</source>
      <translation>正则表达式有误：{error}</translation>
    </message>
  </context>
  <context>
    <name>VocabView</name>
    <message>
      <source>Token length (bytes)</source>
      <translation>词元长度（字节）</translation>
    </message>
    <message>
      <source>Scripts of the tokens</source>
      <translation>词元的文字</translation>
    </message>
    <message>
      <source>undecodable</source>
      <translation>无法往返</translation>
    </message>
    <message>
      <source>unproduced specials</source>
      <translation>不会生成的特殊词元</translation>
    </message>
    <message>
      <source>intermediate-only</source>
      <translation>仅作中间词元</translation>
    </message>
    <message>
      <source>added duplicates</source>
      <translation>重复的添加词元</translation>
    </message>
    <message>
      <source>same decode</source>
      <translation>解码相同</translation>
    </message>
    <message>
      <source>stray bytes</source>
      <translation>零散字节</translation>
    </message>
    <message>
      <source>decode([id]) encoded again never gives the id (plain, after a space, or after a word)</source>
      <translation>decode([id]) 再编码永远得不到该 ID（单独、空格之后或词之后均如此）</translation>
    </message>
    <message>
      <source>special / control tokens that encoding text never gives (templates, post-processor)</source>
      <translation>编码文本永远不会产生的特殊词元 / 控制词元（来自模板、后处理器）</translation>
    </message>
    <message>
      <source>IoS &gt;= 0.9 on the sample texts: almost always merged again into a longer token</source>
      <translation>在示例文本上 IoS &gt;= 0.9：几乎总会再合并成更长的词元</translation>
    </message>
    <message>
      <source>added tokens whose content is also a model token with another id (both ids shown)</source>
      <translation>内容同时也是模型中另一 ID 词元的添加词元（两个 ID 都列出）</translation>
    </message>
    <message>
      <source>several ids that decode to the same text (e.g. &lt;0x41&gt; and 'A')</source>
      <translation>解码为相同文本的多个 ID（如 &lt;0x41&gt; 与 'A'）</translation>
    </message>
    <message>
      <source>tokens that are not UTF-8 alone: they make text only with their neighbours</source>
      <translation>单独不是 UTF-8 的词元：只有和相邻词元一起才构成文本</translation>
    </message>
    <message>
      <source>No tokenizer.</source>
      <translation>没有分词器。</translation>
    </message>
    <message>
      <source>figure</source>
      <translation>项目</translation>
    </message>
    <message>
      <source>value</source>
      <translation>数值</translation>
    </message>
    <message>
      <source>Filter: text, or /regex/</source>
      <translation>筛选：文本，或 /正则表达式/</translation>
    </message>
    <message>
      <source>All categories</source>
      <translation>所有类别</translation>
    </message>
    <message>
      <source>Any health</source>
      <translation>任意健康度</translation>
    </message>
    <message>
      <source>Token health (Land &amp; Bartolo 2024; IoS: Chizhov et al. 2024): checked on a worker the first time one is chosen</source>
      <translation>词元健康度（Land &amp; Bartolo 2024；IoS：Chizhov 等 2024）：首次选择时在工作线程上检查</translation>
    </message>
    <message>
      <source>at least this many bytes (0: any)</source>
      <translation>至少这么多字节（0：不限）</translation>
    </message>
    <message>
      <source>at most this many bytes (0: any)</source>
      <translation>至多这么多字节（0：不限）</translation>
    </message>
    <message>
      <source>bytes</source>
      <translation>字节</translation>
    </message>
    <message>
      <source>tokens</source>
      <translation>词元</translation>
    </message>
    <message>
      <source>Figures</source>
      <translation>数据</translation>
    </message>
    <message>
      <source>Lengths</source>
      <translation>长度</translation>
    </message>
    <message>
      <source>Scripts</source>
      <translation>文字</translation>
    </message>
    <message>
      <source>Tokens</source>
      <translation>词元</translation>
    </message>
    <message>
      <source>Reading the vocabulary…</source>
      <translation>正在读取词表…</translation>
    </message>
    <message>
      <source>Could not read the vocabulary: {error}</source>
      <translation>无法读取词表：{error}</translation>
    </message>
    <message>
      <source>health check failed: {error}</source>
      <translation>健康度检查失败：{error}</translation>
    </message>
    <message>
      <source>{name}: {n:,} tokens</source>
      <translation>{name}：{n:,} 个词元</translation>
    </message>
    <message>
      <source>vocabulary</source>
      <translation>词表</translation>
    </message>
    <message>
      <source>yes</source>
      <translation>是</translation>
    </message>
    <message>
      <source>no</source>
      <translation>否</translation>
    </message>
    <message>
      <source>multiple of 64 / of 128</source>
      <translation>是否为 64 / 128 的倍数</translation>
    </message>
    <message>
      <source>special</source>
      <translation>特殊词元</translation>
    </message>
    <message>
      <source>other added</source>
      <translation>其他添加的词元</translation>
    </message>
    <message>
      <source>reserved</source>
      <translation>保留词元</translation>
    </message>
    <message>
      <source>control</source>
      <translation>控制词元</translation>
    </message>
    <message>
      <source>user-defined</source>
      <translation>用户定义词元</translation>
    </message>
    <message>
      <source>byte pieces</source>
      <translation>字节片段</translation>
    </message>
    <message>
      <source>unused</source>
      <translation>未使用</translation>
    </message>
    <message>
      <source>mean length</source>
      <translation>平均长度</translation>
    </message>
    <message>
      <source>{n:.2f} bytes</source>
      <translation>{n:.2f} 字节</translation>
    </message>
    <message>
      <source>single-Han-character tokens</source>
      <translation>单个汉字的词元</translation>
    </message>
    <message>
      <source>one-token numbers of 0–999</source>
      <translation>0–999 中为单个词元的数</translation>
    </message>
    <message>
      <source>longest #{k} ({n} bytes)</source>
      <translation>第 {k} 长（{n} 字节）</translation>
    </message>
    <message>
      <source>≥ {n}</source>
      <translation>≥ {n}</translation>
    </message>
    <message>
      <source>last bar: the longest {tokens:,} tokens ({first}–{last} bytes)</source>
      <translation>最后一栏：最长的 {tokens:,} 个词元（{first}–{last} 字节）</translation>
    </message>
    <message>
      <source>{shown:,} of {total:,}</source>
      <translation>{shown:,} / {total:,}</translation>
    </message>
    <message>
      <source>({error})</source>
      <translation>（{error}）</translation>
    </message>
    <message>
      <source>(checking health…)</source>
      <translation>（正在检查健康度…）</translation>
    </message>
  </context>
  <context>
    <name>chat</name>
    <message>
      <source>this tokenizer has no chat template (none in tokenizer_config.json, chat_template.jinja or additional_chat_templates/)</source>
      <translation>此分词器没有对话模板（tokenizer_config.json、chat_template.jinja 和 additional_chat_templates/ 中都没有）</translation>
    </message>
    <message>
      <source>no chat template named {name!r} (there are: {names})</source>
      <translation>没有名为 {name!r} 的对话模板（现有：{names}）</translation>
    </message>
    <message>
      <source>several chat templates and none is the default: name one of {names}</source>
      <translation>有多个对话模板，但没有默认模板：请指定其中之一：{names}</translation>
    </message>
    <message>
      <source>expected a list of messages or an object with "messages"</source>
      <translation>应为消息列表，或含 "messages" 的对象</translation>
    </message>
    <message>
      <source>messages: expected a list, got {kind}</source>
      <translation>messages：应为列表，实际为 {kind}</translation>
    </message>
    <message>
      <source>message {n}: expected an object, got {kind}</source>
      <translation>消息 {n}：应为对象，实际为 {kind}</translation>
    </message>
    <message>
      <source>message {n}: "role" must be a string</source>
      <translation>消息 {n}："role" 必须是字符串</translation>
    </message>
    <message>
      <source>message {n}: "content" must be a string or a list of parts</source>
      <translation>消息 {n}："content" 必须是字符串或片段列表</translation>
    </message>
    <message>
      <source>"{key}": expected a list of objects</source>
      <translation>"{key}"：应为对象列表</translation>
    </message>
    <message>
      <source>not UTF-8 (invalid byte 0x{byte:02x} at offset {offset})</source>
      <translation>不是 UTF-8（偏移 {offset} 处的字节 0x{byte:02x} 无效）</translation>
    </message>
    <message>
      <source>not JSON: {error} (line {line}, column {column})</source>
      <translation>不是 JSON：{error}（第 {line} 行，第 {column} 列）</translation>
    </message>
    <message>
      <source>the chat template does not compile: {message} (line {line})</source>
      <translation>对话模板无法编译：{message}（第 {line} 行）</translation>
    </message>
    <message>
      <source>the chat template ran for more than {limit:g} s and was stopped</source>
      <translation>对话模板运行超过 {limit:g} 秒，已被停止</translation>
    </message>
    <message>
      <source>the chat template used more than {mb} MB of memory while rendering and was stopped</source>
      <translation>对话模板渲染时占用内存超过 {mb} MB，已被停止</translation>
    </message>
    <message>
      <source>the chat template raised: {message}</source>
      <translation>对话模板抛出错误：{message}</translation>
    </message>
    <message>
      <source>the chat template recursed too deeply</source>
      <translation>对话模板递归过深</translation>
    </message>
    <message>
      <source>the chat template failed: {message}</source>
      <translation>对话模板执行失败：{message}</translation>
    </message>
    <message>
      <source>the chat template could not be rendered: {message}</source>
      <translation>无法渲染对话模板：{message}</translation>
    </message>
    <message>
      <source>not UTF-8 (invalid byte at offset {offset})</source>
      <translation>不是 UTF-8（偏移 {offset} 处的字节无效）</translation>
    </message>
    <message>
      <source>{key}[{k}]: expected {{"name": ..., "template": ...}} with two strings</source>
      <translation>{key}[{k}]：应为含两个字符串的 {{"name": ..., "template": ...}}</translation>
    </message>
    <message>
      <source>{key}: expected a string or a list of named templates, got {kind}</source>
      <translation>{key}：应为字符串或具名模板列表，实际为 {kind}</translation>
    </message>
    <message>
      <source>not JSON: {error} (line {line})</source>
      <translation>不是 JSON：{error}（第 {line} 行）</translation>
    </message>
    <message>
      <source>expected an object with "chat_template"</source>
      <translation>应为含 "chat_template" 的对象</translation>
    </message>
    <message>
      <source>{path}: {reason}</source>
      <translation>{path}：{reason}</translation>
    </message>
  </context>
  <context>
    <name>core</name>
    <message>
      <source>unknown ids style {style!r} (choose from {choices})</source>
      <translation>未知的 ID 格式 {style!r}（可选：{choices}）</translation>
    </message>
    <message>
      <source>ids must be numbers separated by spaces or commas; found {bad!r}</source>
      <translation>ID 必须是以空格或逗号分隔的数字；发现了 {bad!r}</translation>
    </message>
    <message>
      <source>ids cannot be negative</source>
      <translation>ID 不能为负数</translation>
    </message>
    <message>
      <source>id {id} is not in the vocabulary (size {size})</source>
      <translation>ID {id} 不在词表中（词表大小 {size}）</translation>
    </message>
    <message>
      <source>cannot decode id {id}: not in the vocabulary (size {size})</source>
      <translation>无法解码 ID {id}：不在词表中（词表大小 {size}）</translation>
    </message>
  </context>
  <context>
    <name>describe_error</name>
    <message>
      <source>{kind}: {message}</source>
      <translation>{kind}：{message}</translation>
    </message>
    <message>
      <source>{path}: {reason}</source>
      <translation>{path}：{reason}</translation>
    </message>
  </context>
  <context>
    <name>errors</name>
    <message>
      <source>expected text (str), got {kind}</source>
      <translation>应为文本（str），实际为 {kind}</translation>
    </message>
    <message>
      <source>text has a lone surrogate U+{code:04X} at character {at}; it is not valid Unicode and cannot be encoded as UTF-8</source>
      <translation>文本第 {at} 个字符处有孤立的代理码位 U+{code:04X}；它不是有效的 Unicode，无法编码为 UTF-8</translation>
    </message>
  </context>
  <context>
    <name>fairness</name>
    <message>
      <source>, </source>
      <translation>，</translation>
    </message>
    <message>
      <source>{piece} ({what}) {count:,}</source>
      <translation>{piece}（{what}）{count:,}</translation>
    </message>
    <message>
      <source>{name}: {share:.1%} of the pivot's tokens are byte-fallback pieces too, characters its vocabulary lacks: {common}</source>
      <translation>{name}：基准语言的词元中也有 {share:.1%} 是字节回退片段，即其词表缺少的字符：{common}</translation>
    </message>
    <message>
      <source>{lang}: {lines:,} non-blank lines against {pivot_lines:,} and {bytes:,} bytes against {pivot_bytes:,} of the pivot {pivot}: is it the same content (parallel)?</source>
      <translation>{lang}：{lines:,} 个非空行（基准语言 {pivot} 为 {pivot_lines:,} 行），{bytes:,} 字节（{pivot} 为 {pivot_bytes:,} 字节）：内容是否相同（平行）？</translation>
    </message>
    <message>
      <source>{lang}: {lines:,} non-blank lines against {pivot_lines:,} of the pivot {pivot}: is it the same content (parallel)?</source>
      <translation>{lang}：{lines:,} 个非空行（基准语言 {pivot} 为 {pivot_lines:,} 行）：内容是否相同（平行）？</translation>
    </message>
    <message>
      <source>{lang}: {bytes:,} bytes against {pivot_bytes:,} of the pivot {pivot}: is it the same content (parallel)?</source>
      <translation>{lang}：{bytes:,} 字节（基准语言 {pivot} 为 {pivot_bytes:,} 字节）：内容是否相同（平行）？</translation>
    </message>
    <message>
      <source>part of a character</source>
      <translation>字符的一部分</translation>
    </message>
    <message>
      <source>{lang}: {share:.0%} of its word characters are in scripts written without spaces; STRR is n/a (its {words:,} other words are not the language's words)</source>
      <translation>{lang}：{share:.0%} 的单词字符属于不用空格分词的文字；STRR 不适用（其余 {words:,} 个词并不代表该语言的词）</translation>
    </message>
    <message>
      <source>{lang}: {share:.0%} of its word characters are in scripts written without spaces and are left out of its words</source>
      <translation>{lang}：{share:.0%} 的单词字符属于不用空格分词的文字，未计入其词</translation>
    </message>
  </context>
  <context>
    <name>fonts</name>
    <message>
      <source>symbols and emoji</source>
      <translation>符号和表情</translation>
    </message>
    <message>
      <source>punctuation</source>
      <translation>标点</translation>
    </message>
    <message>
      <source>Chinese/Japanese characters</source>
      <translation>中日文汉字</translation>
    </message>
    <message>
      <source>Korean (Hangul)</source>
      <translation>韩文（谚文）</translation>
    </message>
    <message>
      <source>Japanese kana</source>
      <translation>日文假名</translation>
    </message>
  </context>
  <context>
    <name>formats</name>
    <message>
      <source>no tokenizer found in this folder (looked for tokenizer.json, tekken.json, vocab.json + merges.txt, *.tiktoken, *.model, vocab.txt, rwkv_vocab*.txt, *.gguf)</source>
      <translation>此文件夹中没有找到分词器（查找了 tokenizer.json、tekken.json、vocab.json + merges.txt、*.tiktoken、*.model、vocab.txt、rwkv_vocab*.txt、*.gguf）</translation>
    </message>
    <message>
      <source>unknown tokenizer format (expected one of: tokenizer.json, tekken.json, vocab.json + merges.txt, .tiktoken, .model, vocab.txt, an RWKV vocabulary .txt, .gguf)</source>
      <translation>未知的分词器格式（应为以下之一：tokenizer.json、tekken.json、vocab.json + merges.txt、.tiktoken、.model、vocab.txt、RWKV 词表 .txt、.gguf）</translation>
    </message>
    <message>
      <source>no such file or folder; as a Hub model name: {reason}</source>
      <translation>没有这个文件或文件夹；作为 Hub 模型名：{reason}</translation>
    </message>
    <message>
      <source>is in the Hugging Face cache (revision {revision}) but holds no tokenizer files; `tokviz fetch {repo}` adds them</source>
      <translation>在 Hugging Face 缓存中（修订版本 {revision}），但其中没有分词器文件；`tokviz fetch {repo}` 可补上</translation>
    </message>
    <message>
      <source>unknown format {format!r} (known: {known})</source>
      <translation>未知格式 {format!r}（已知：{known}）</translation>
    </message>
    <message>
      <source>file is too large or too deeply nested to load ({kind})</source>
      <translation>文件太大或嵌套太深，无法加载（{kind}）</translation>
    </message>
    <message>
      <source>gzip-compressed</source>
      <translation>gzip 压缩文件</translation>
    </message>
    <message>
      <source>a zip archive</source>
      <translation>zip 归档</translation>
    </message>
    <message>
      <source>an (empty) zip archive</source>
      <translation>（空的）zip 归档</translation>
    </message>
    <message>
      <source>xz-compressed</source>
      <translation>xz 压缩文件</translation>
    </message>
    <message>
      <source>bzip2-compressed</source>
      <translation>bzip2 压缩文件</translation>
    </message>
    <message>
      <source>zstd-compressed</source>
      <translation>zstd 压缩文件</translation>
    </message>
    <message>
      <source>a 7-Zip archive</source>
      <translation>7-Zip 归档</translation>
    </message>
    <message>
      <source>a PNG image</source>
      <translation>PNG 图片</translation>
    </message>
    <message>
      <source>a JPEG image</source>
      <translation>JPEG 图片</translation>
    </message>
    <message>
      <source>a GIF image</source>
      <translation>GIF 图片</translation>
    </message>
    <message>
      <source>a PDF document</source>
      <translation>PDF 文档</translation>
    </message>
    <message>
      <source>an ELF executable or library</source>
      <translation>ELF 可执行文件或库</translation>
    </message>
    <message>
      <source>a Windows executable</source>
      <translation>Windows 可执行文件</translation>
    </message>
    <message>
      <source>a NumPy array file</source>
      <translation>NumPy 数组文件</translation>
    </message>
    <message>
      <source>the file is {kind}; tokviz does not decompress files: decompress it first ({tool})</source>
      <translation>该文件是{kind}；tokviz 不解压文件：请先解压（{tool}）</translation>
    </message>
    <message>
      <source>the file is a Python pickle; tokviz never loads pickles (unpickling can run arbitrary code): save the tokenizer as tokenizer.json, .model or .tiktoken instead</source>
      <translation>该文件是 Python pickle；tokviz 从不加载 pickle（反序列化可能执行任意代码）：请改将分词器保存为 tokenizer.json、.model 或 .tiktoken</translation>
    </message>
    <message>
      <source>the file is {kind}, not a tokenizer or text (binary data, not UTF-8)</source>
      <translation>该文件是{kind}，不是分词器或文本（二进制数据，不是 UTF-8）</translation>
    </message>
    <message>
      <source>file is {size:.1f} GB, too large to be a tokenizer (limit 1 GB)</source>
      <translation>文件大小为 {size:.1f} GB，太大，不可能是分词器（上限 1 GB）</translation>
    </message>
    <message>
      <source>not UTF-8 text (invalid byte 0x{byte:02x} at offset {offset})</source>
      <translation>不是 UTF-8 文本（偏移 {offset} 处的字节 0x{byte:02x} 无效）</translation>
    </message>
    <message>
      <source>malformed JSON at line {line}, column {column}: {error}</source>
      <translation>JSON 格式错误，位于第 {line} 行第 {column} 列：{error}</translation>
    </message>
    <message>
      <source>JSON is nested too deeply</source>
      <translation>JSON 嵌套太深</translation>
    </message>
    <message>
      <source>malformed JSON: a number is too long to read ({error})</source>
      <translation>JSON 格式错误：数字太长，无法读取（{error}）</translation>
    </message>
    <message>
      <source>malformed JSON: {place}: {error}</source>
      <translation>JSON 格式错误：{place}：{error}</translation>
    </message>
    <message>
      <source>malformed JSON: {error}</source>
      <translation>JSON 格式错误：{error}</translation>
    </message>
    <message>
      <source>expected an object, got {kind}</source>
      <translation>应为对象，实际为 {kind}</translation>
    </message>
    <message>
      <source>{place}: {message}</source>
      <translation>{place}：{message}</translation>
    </message>
    <message>
      <source>missing field {key!r}</source>
      <translation>缺少字段 {key!r}</translation>
    </message>
    <message>
      <source>{place}: expected {names}, got {kind}</source>
      <translation>{place}：应为 {names}，实际为 {kind}</translation>
    </message>
    <message>
      <source>is {kind}, not a regular file; only a file is replaced by a new one</source>
      <translation>是{kind}，不是普通文件；只有文件才能被新文件替换</translation>
    </message>
    <message>
      <source>a rename failed and the old files could not all be put back; they are kept as {kept}</source>
      <translation>重命名失败，且旧文件未能全部恢复；它们保留为 {kept}</translation>
    </message>
    <message>
      <source>a rename failed and the old files could not all be put back</source>
      <translation>重命名失败，且旧文件未能全部恢复</translation>
    </message>
    <message>
      <source>already exists (pass overwrite=True, or --force, to replace it)</source>
      <translation>已存在（要替换它，请传入 overwrite=True 或使用 --force）</translation>
    </message>
    <message>
      <source>cannot write: {error}</source>
      <translation>无法写入：{error}</translation>
    </message>
    <message>
      <source>this GGUF file holds no tokenizer (no tokenizer.ggml.model)</source>
      <translation>此 GGUF 文件不含分词器（没有 tokenizer.ggml.model）</translation>
    </message>
    <message>
      <source>tokenizer.ggml.model {model!r}: this GGUF file has no vocabulary (llama.cpp loads it but cannot tokenize with it)</source>
      <translation>tokenizer.ggml.model {model!r}：此 GGUF 文件没有词表（llama.cpp 能加载它，但无法用它分词）</translation>
    </message>
    <message>
      <source>tokenizer.ggml.model {model!r}: llama.cpp refuses this file (unknown tokenizer)</source>
      <translation>tokenizer.ggml.model {model!r}：llama.cpp 拒绝此文件（未知的分词器）</translation>
    </message>
    <message>
      <source>tokenizer.ggml.tokens: missing, empty or not an array of strings</source>
      <translation>tokenizer.ggml.tokens：缺失、为空或不是字符串数组</translation>
    </message>
    <message>
      <source>not found: the GPT-2 layout needs {vocab} and {merges} side by side</source>
      <translation>未找到：GPT-2 布局需要 {vocab} 和 {merges} 放在同一处</translation>
    </message>
    <message>
      <source>tokenizer_class {cls!r} is not implemented by tokviz for the vocab.json + merges.txt layout (it reads {known}); a tokenizer.json of it would say exactly what it does</source>
      <translation>tokviz 未针对 vocab.json + merges.txt 布局实现 tokenizer_class {cls!r}（支持：{known}）；它的 tokenizer.json 会准确说明其行为</translation>
    </message>
    <message>
      <source>the {what} has {keys}, which tokviz does not implement</source>
      <translation>{what} 含有 {keys}，tokviz 未实现这些</translation>
    </message>
    <message>
      <source>not a tokenizer.json (no 'model' field)</source>
      <translation>不是 tokenizer.json（没有 'model' 字段）</translation>
    </message>
    <message>
      <source>unsupported model type {kind!r}</source>
      <translation>不支持的模型类型 {kind!r}</translation>
    </message>
    <message>
      <source>dropout {dropout} is not supported: BPE dropout skips merges at random, tokviz encodes deterministically (dropout null or 0)</source>
      <translation>不支持 dropout {dropout}：BPE dropout 会随机跳过合并，而 tokviz 的编码是确定性的（dropout 应为 null 或 0）</translation>
    </message>
    <message>
      <source>unsupported normalizer type {kind!r}</source>
      <translation>不支持的规范化器类型 {kind!r}</translation>
    </message>
    <message>
      <source>unsupported pre-tokenizer type {kind!r}</source>
      <translation>不支持的预分词器类型 {kind!r}</translation>
    </message>
    <message>
      <source>unsupported post-processor type {kind!r}</source>
      <translation>不支持的后处理器类型 {kind!r}</translation>
    </message>
    <message>
      <source>unsupported decoder type {kind!r}</source>
      <translation>不支持的解码器类型 {kind!r}</translation>
    </message>
    <message>
      <source>not a minbpe model: first line should be {magic!r}</source>
      <translation>不是 minbpe 模型：第一行应为 {magic!r}</translation>
    </message>
    <message>
      <source>truncated minbpe model: missing pattern or special-token count</source>
      <translation>minbpe 模型不完整：缺少切分模式或特殊词元数量</translation>
    </message>
    <message>
      <source>line {lineno}: expected 'id literal length' (an RWKV vocabulary line), got {line!r}</source>
      <translation>第 {lineno} 行：应为 'id literal length'（RWKV 词表行），实际为 {line!r}</translation>
    </message>
    <message>
      <source>no tokens in the file (empty, or not an RWKV vocabulary)</source>
      <translation>文件中没有词元（文件为空，或不是 RWKV 词表）</translation>
    </message>
    <message>
      <source>looks like JSON text, not a sentencepiece .model (a binary protobuf file)</source>
      <translation>看起来是 JSON 文本，不是 sentencepiece 的 .model（二进制 protobuf 文件）</translation>
    </message>
    <message>
      <source>not a valid sentencepiece model: {reason}</source>
      <translation>不是有效的 sentencepiece 模型：{reason}</translation>
    </message>
    <message>
      <source>no pieces (vocabulary) found</source>
      <translation>没有找到片段（词表）</translation>
    </message>
    <message>
      <source>a subword-nmt BPE codes file ('#version: 0.2', then one merge 'a b' per line): tokviz does not read subword-nmt files (a GPT-2 merges.txt beside its vocab.json is read from their folder)</source>
      <translation>这是 subword-nmt 的 BPE codes 文件（'#version: 0.2'，之后每行一条合并规则 'a b'）：tokviz 不读取 subword-nmt 文件（与 vocab.json 放在一起的 GPT-2 merges.txt 可通过打开其文件夹读取）</translation>
    </message>
    <message>
      <source>a fastBPE codes file (one merge 'a b count' per line): tokviz does not read fastBPE files</source>
      <translation>这是 fastBPE 的 codes 文件（每行一条合并规则 'a b count'）：tokviz 不读取 fastBPE 文件</translation>
    </message>
    <message>
      <source>a YouTokenToMe model (character and merge-rule id lines): tokviz does not read YouTokenToMe models</source>
      <translation>这是 YouTokenToMe 模型（字符行与合并规则 ID 行）：tokviz 不读取 YouTokenToMe 模型</translation>
    </message>
    <message>
      <source>a sentencepiece vocabulary listing (piece&lt;TAB&gt;score, the .vocab spm_train writes beside the .model): tokviz does not read it; load the .model file</source>
      <translation>这是 sentencepiece 词表清单（piece&lt;TAB&gt;score，即 spm_train 在 .model 旁写出的 .vocab）：tokviz 不读取它；请加载 .model 文件</translation>
    </message>
    <message>
      <source>a minbpe .vocab listing (written for people, not read back): load the .model file beside it</source>
      <translation>这是 minbpe 的 .vocab 清单（供人阅读，不用于读回）：请加载它旁边的 .model 文件</translation>
    </message>
    <message>
      <source>a fairseq/Moses dictionary (dict.txt: 'token count' lines): tokviz does not read fairseq dictionaries</source>
      <translation>这是 fairseq/Moses 词典（dict.txt：'token count' 行）：tokviz 不读取 fairseq 词典</translation>
    </message>
    <message>
      <source>a fastBPE vocabulary ('token count' lines, as fastBPE's getvocab and subword-nmt's get-vocab write): tokviz does not read fastBPE files</source>
      <translation>这是 fastBPE 词表（'token count' 行，由 fastBPE 的 getvocab 或 subword-nmt 的 get-vocab 写出）：tokviz 不读取 fastBPE 文件</translation>
    </message>
    <message>
      <source>a transformers {name} (settings beside a tokenizer, not a vocabulary): load the folder that holds it, or its tokenizer.json or vocabulary files</source>
      <translation>这是 transformers 的 {name}（分词器旁的设置文件，不是词表）：请加载它所在的文件夹，或其中的 tokenizer.json 或词表文件</translation>
    </message>
    <message>
      <source>no ranks in file (empty or not a .tiktoken file)</source>
      <translation>文件中没有序号（文件为空，或不是 .tiktoken 文件）</translation>
    </message>
    <message>
      <source>tokenizer_class {cls!r} is not implemented by tokviz for a vocab.txt (it reads {known})</source>
      <translation>tokviz 未针对 vocab.txt 实现 tokenizer_class {cls!r}（支持：{known}）</translation>
    </message>
    <message>
      <source>empty vocabulary</source>
      <translation>词表为空</translation>
    </message>
    <message>
      <source>not a BERT vocab.txt: no {unk} token (the unknown token) in it</source>
      <translation>不是 BERT 的 vocab.txt：其中没有 {unk} 词元（未知词元）</translation>
    </message>
    <message>
      <source>cannot write format {format!r} (writable: {known})</source>
      <translation>无法写出格式 {format!r}（可写出：{known}）</translation>
    </message>
    <message>
      <source>a .model file is a sentencepiece or a minbpe model, and neither can hold this tokenizer: {reasons}</source>
      <translation>.model 文件是 sentencepiece 或 minbpe 模型，两者都无法容纳此分词器：{reasons}</translation>
    </message>
    <message>
      <source>; </source>
      <translation>；</translation>
    </message>
    <message>
      <source>cannot tell the format from the name (use .json, .txt, .tiktoken, .model, .tsv or .csv, or give format=)</source>
      <translation>无法从文件名判断格式（请使用 .json、.txt、.tiktoken、.model、.tsv 或 .csv，或指定 format=）</translation>
    </message>
    <message>
      <source>no such folder (the path ends in '{sep}'); {format} is written into an existing folder or as a file name</source>
      <translation>没有这个文件夹（路径以 '{sep}' 结尾）；{format} 只能写入已有的文件夹或写为文件名</translation>
    </message>
    <message>
      <source>the folder to write into does not exist</source>
      <translation>要写入的文件夹不存在</translation>
    </message>
    <message>
      <source>cannot write as {format}: {reason}</source>
      <translation>无法写为 {format}：{reason}</translation>
    </message>
    <message>
      <source>auto_map names custom tokenizer code, which transformers runs only with trust_remote_code and tokviz does not run</source>
      <translation>auto_map 指向自定义的分词器代码，transformers 只在 trust_remote_code 时运行它，而 tokviz 不运行</translation>
    </message>
    <message>
      <source>tokenizer_class {cls!r} is not a class transformers knows; it fails to load this folder</source>
      <translation>tokenizer_class {cls!r} 不是 transformers 认识的类；它无法加载此文件夹</translation>
    </message>
    <message>
      <source>model_type {model_type!r}: transformers reads this folder's tekken.json with mistral-common; open tekken.json instead</source>
      <translation>model_type {model_type!r}：transformers 用 mistral-common 读取此文件夹的 tekken.json；请改为打开 tekken.json</translation>
    </message>
    <message>
      <source>{where}: transformers reads this folder with {chosen}Tokenizer, which builds its own pipeline from the vocabulary instead of taking tokenizer.json's; tokviz does not implement it (it follows {known} and the classes that take tokenizer.json as it is)</source>
      <translation>{where}：transformers 用 {chosen}Tokenizer 读取此文件夹，它会根据词表自行构建处理流程，而不采用 tokenizer.json 中的流程；tokviz 未实现它（tokviz 遵循 {known}，以及原样采用 tokenizer.json 的类）</translation>
    </message>
  </context>
  <context>
    <name>health</name>
    <message>
      <source>reachability is not checked for {model} models (greedy longest match gives every word-initial token from its own string)</source>
      <translation>{model} 模型不检查可达性（贪心最长匹配总能由词首词元自身的字符串得到它）</translation>
    </message>
    <message>
      <source>this BPE takes a pre-token that is a token whole (ignore_merges / tiktoken): unreachable here means no sequence of merges makes the token, so it only appears when a whole pre-token equals it</source>
      <translation>此 BPE 会把本身就是词元的预分词片段整个取用（ignore_merges / tiktoken）：这里的“无法生成”指没有任何合并序列能生成该词元，它只在整个预分词片段与之相同时出现</translation>
    </message>
    <message>
      <source>part {part!r} is not a token</source>
      <translation>组成部分 {part!r} 不是词元</translation>
    </message>
    <message>
      <source>part {left!r} and {right!r} is not a token</source>
      <translation>组成部分 {left!r} 和 {right!r} 不是词元</translation>
    </message>
    <message>
      <source>result {token!r} is not a token</source>
      <translation>合并结果 {token!r} 不是词元</translation>
    </message>
    <message>
      <source>part {late}</source>
      <translation>组成部分 {late}</translation>
    </message>
    <message>
      <source> and </source>
      <translation>，</translation>
    </message>
    <message>
      <source>{part!r} is only made by merge {rank}</source>
      <translation>{part!r} 只由合并 {rank} 生成</translation>
    </message>
    <message>
      <source>plain</source>
      <translation>原样</translation>
    </message>
    <message>
      <source>space</source>
      <translation>前加空格</translation>
    </message>
    <message>
      <source>after a word</source>
      <translation>接在词后</translation>
    </message>
    <message>
      <source>the given text</source>
      <translation>给定文本</translation>
    </message>
    <message>
      <source>no anchor token ('7', 'x', '#' or '«' as one token): 'after a word' and 'same decode' skipped</source>
      <translation>没有锚点词元（'7'、'x'、'#' 或 '«' 均不是单个词元）：跳过“接在词后”和“解码相同”</translation>
    </message>
    <message>
      <source>intermediate-only tokens (IoS) are measured on BPE merges; not for {model} models</source>
      <translation>仅作中间结果的词元（IoS）基于 BPE 合并计算，不适用于 {model} 模型</translation>
    </message>
    <message>
      <source>starts inside a character</source>
      <translation>始于字符中间</translation>
    </message>
    <message>
      <source>ends inside a character</source>
      <translation>止于字符中间</translation>
    </message>
    <message>
      <source>invalid byte</source>
      <translation>无效字节</translation>
    </message>
    <message>
      <source>, </source>
      <translation>，</translation>
    </message>
    <message>
      <source>the post-processor</source>
      <translation>后处理器</translation>
    </message>
    <message>
      <source>templates / special-token matching</source>
      <translation>模板 / 特殊词元匹配</translation>
    </message>
  </context>
  <context>
    <name>learn</name>
    <message>
      <source>Stopped: {reason}.</source>
      <translation>已停止：{reason}。</translation>
    </message>
    <message>
      <source>{symbol} was already a token</source>
      <translation>{symbol} 已经是一个词元</translation>
    </message>
    <message>
      <source>{symbol} is new; {left} and {right} still occur elsewhere</source>
      <translation>{symbol} 是新符号；{left} 和 {right} 仍在别处出现</translation>
    </message>
    <message>
      <source>{symbol} is new; {gone} no longer occurs on its own</source>
      <translation>{symbol} 是新符号；{gone} 不再单独出现</translation>
    </message>
    <message>
      <source>{symbol} is new; {gone} no longer occur on their own</source>
      <translation>{symbol} 是新符号；{gone} 都不再单独出现</translation>
    </message>
    <message>
      <source>Symbols in the corpus: {before} → {after} ({delta}): {why}. Vocabulary: {size} tokens.</source>
      <translation>语料中的符号：{before} → {after}（{delta}）：{why}。词表：{size} 个词元。</translation>
    </message>
    <message>
      <source>Tied with {pairs}: {rule}.</source>
      <translation>与 {pairs} 并列：{rule}。</translation>
    </message>
    <message>
      <source>BPE would merge {left} + {right}, the most frequent pair; WordPiece prefers the pair whose parts are rarer on their own.</source>
      <translation>BPE 会合并频次最高的词对 {left} + {right}；WordPiece 偏好其组成部分单独出现得更少的词对。</translation>
    </message>
    <message>
      <source>Objective: {objective:.6g}</source>
      <translation>目标函数：{objective:.6g}</translation>
    </message>
    <message>
      <source>Removed (expected fewer than 0.5 times): {pieces}</source>
      <translation>已删除（期望计数少于 0.5）：{pieces}</translation>
    </message>
    <message>
      <source>Removed: {pieces}</source>
      <translation>已删除：{pieces}</translation>
    </message>
    <message>
      <source>Step {number}: seed pieces</source>
      <translation>第 {number} 步：种子子词</translation>
    </message>
    <message>
      <source>Step {number}: round {round}, EM step {iteration}</source>
      <translation>第 {number} 步：第 {round} 轮，EM 第 {iteration} 步</translation>
    </message>
    <message>
      <source>Step {number}: round {round}, pruning</source>
      <translation>第 {number} 步：第 {round} 轮，剪枝</translation>
    </message>
    <message>
      <source>… and {n} more rows</source>
      <translation>… 另有 {n} 行</translation>
    </message>
    <message>
      <source>{steps} merges</source>
      <translation>{steps} 次合并</translation>
    </message>
    <message>
      <source>… {n} more steps</source>
      <translation>… 另有 {n} 步</translation>
    </message>
    <message>
      <source>Merges</source>
      <translation>合并规则</translation>
    </message>
    <message>
      <source>ties go to the pair of the lowest token ids (HF tokenizers' BpeTrainer)</source>
      <extracomment>the tie rules of TrainOptions.tie_break, as a learner reads them</extracomment>
      <translation>平局时选词元 ID 最小的词对（HF tokenizers 的 BpeTrainer）</translation>
    </message>
    <message>
      <source>ties go to the pair that occurs first in the corpus as it stands (minbpe)</source>
      <translation>平局时选在当前语料中最先出现的词对（minbpe）</translation>
    </message>
    <message>
      <source>unknown model {model!r}</source>
      <extracomment>a step keeps this many pairs of its table, the best (`pairs_total` says how many there were)
----------
texts -&gt; (words, counts): a trainer's own counting (see `counter_for`)</extracomment>
      <translation>未知的模型 {model!r}</translation>
    </message>
    <message>
      <source>no pair is left to merge: every word is one symbol</source>
      <translation>没有可合并的词对了：每个词都只剩一个符号</translation>
    </message>
    <message>
      <source>the most frequent pair, {left} + {right}, occurs {count} times, fewer than min_frequency {min}</source>
      <translation>频次最高的词对 {left} + {right} 出现 {count} 次，少于 min_frequency {min}</translation>
    </message>
    <message>
      <source>the vocabulary is full: {size} tokens</source>
      <translation>词表已满：{size} 个词元</translation>
    </message>
    <message>
      <source>unknown model {model!r} (choose from {choices})</source>
      <translation>未知的模型 {model!r}（可选：{choices}）</translation>
    </message>
    <message>
      <source>word</source>
      <extracomment>rows of each Markdown table (the rest is counted in a line below it)</extracomment>
      <translation>词</translation>
    </message>
    <message>
      <source>count</source>
      <translation>次数</translation>
    </message>
    <message>
      <source>the vocabulary fits: {n} pieces, at most {desired} wanted (vocab_size leaves room for {budget})</source>
      <translation>词表已容得下：{n} 个子词，目标至多 {desired} 个（vocab_size 留出 {budget} 个位置）</translation>
    </message>
    <message>
      <source>the vocabulary fits: {n} pieces, at most {desired} wanted (vocab_size leaves room for {budget}); the {budget} best-scoring make the vocabulary</source>
      <translation>词表已容得下：{n} 个子词，目标至多 {desired} 个（vocab_size 留出 {budget} 个位置）；得分最高的 {budget} 个组成词表</translation>
    </message>
    <message>
      <source>piece</source>
      <translation>子词</translation>
    </message>
    <message>
      <source>expected count</source>
      <translation>期望计数</translation>
    </message>
    <message>
      <source>loss</source>
      <translation>损失</translation>
    </message>
    <message>
      <source>Vocabulary: {n} pieces</source>
      <translation>词表：{n} 个子词</translation>
    </message>
    <message>
      <source>log probability</source>
      <translation>对数概率</translation>
    </message>
    <message>
      <source>probability</source>
      <translation>概率</translation>
    </message>
    <message>
      <source>best segmentation</source>
      <translation>最佳切分</translation>
    </message>
    <message>
      <source>not a JSON object of word counts: {reason}</source>
      <extracomment>Learn keeps every table of every step: beyond this many distinct words, `tokviz train` is the tool</extracomment>
      <translation>不是词频的 JSON 对象：{reason}</translation>
    </message>
    <message>
      <source>the count of {word!r} is not a whole number: {count!r}</source>
      <translation>{word!r} 的次数不是整数：{count!r}</translation>
    </message>
    <message>
      <source>{item!r} is not word:count (for example low:5)</source>
      <translation>{item!r} 不是“词:次数”（例如 low:5）</translation>
    </message>
    <message>
      <source>the count of {word!r} must be at least 1, not {count}</source>
      <translation>{word!r} 的次数至少为 1，而不是 {count}</translation>
    </message>
    <message>
      <source>no words given</source>
      <translation>没有给出任何词</translation>
    </message>
    <message>
      <source>the corpus has no words</source>
      <translation>语料中没有词</translation>
    </message>
    <message>
      <source>{n} distinct words: Learn steps through corpora of up to {limit} (every step keeps its tables); train bigger corpora with Train</source>
      <translation>{n} 个不同的词：“学习”只逐步演示至多 {limit} 个不同词的语料（每一步都保留它的表格）；更大的语料请用“训练”</translation>
    </message>
  </context>
  <context>
    <name>overlap</name>
    <message>
      <source>{models} (no merge list)</source>
      <translation>{models}（没有合并列表）</translation>
    </message>
    <message>
      <source>, </source>
      <translation>，</translation>
    </message>
    <message>
      <source>{name} is a {model}</source>
      <translation>{name} 是 {model} 模型</translation>
    </message>
    <message>
      <source>{a} and {b} are the same vocabulary: the same {shared:,} tokens with the same ids and the same {merges:,} merges in the same order.</source>
      <translation>{a} 与 {b} 是同一个词表：同样的 {shared:,} 个词元，ID 相同，且有同样的 {merges:,} 条合并规则，顺序相同。</translation>
    </message>
    <message>
      <source>{a} and {b} are the same vocabulary: the same {shared:,} tokens with the same ids.</source>
      <translation>{a} 与 {b} 是同一个词表：同样的 {shared:,} 个词元，ID 相同。</translation>
    </message>
    <message>
      <source>{a} and {b} are the same vocabulary: the same {shared:,} tokens, with other ids and the same {merges:,} merges in the same order.</source>
      <translation>{a} 与 {b} 是同一个词表：同样的 {shared:,} 个词元，但 ID 不同，且有同样的 {merges:,} 条合并规则，顺序相同。</translation>
    </message>
    <message>
      <source>{a} and {b} are the same vocabulary: the same {shared:,} tokens, with other ids.</source>
      <translation>{a} 与 {b} 是同一个词表：同样的 {shared:,} 个词元，但 ID 不同。</translation>
    </message>
    <message>
      <source>{longer}'s first {fewest:,} merges are {shorter}'s, in {shorter}'s order; {longer} adds {more:,} more</source>
      <translation>{longer} 的前 {fewest:,} 条合并规则就是 {shorter} 的，且顺序与 {shorter} 相同；{longer} 另外增加了 {more:,} 条</translation>
    </message>
    <message>
      <source>all {run:,} of {first}'s merges (derived from its ranks) are {second}'s too, in the same order</source>
      <translation>{first} 的全部 {run:,} 条合并规则（由其序号推出）{second} 也都有，且顺序相同</translation>
    </message>
    <message>
      <source>all {run:,} of {first}'s merges are {second}'s too, in the same order</source>
      <translation>{first} 的全部 {run:,} 条合并规则 {second} 也都有，且顺序相同</translation>
    </message>
    <message>
      <source>{first}'s first {run:,} merges (of {total:,}) (derived from its ranks) are all {second}'s too, in the same order</source>
      <translation>{first} 的前 {run:,} 条合并规则（共 {total:,} 条，由其序号推出）{second} 也都有，且顺序相同</translation>
    </message>
    <message>
      <source>{first}'s first {run:,} merges (of {total:,}) are all {second}'s too, in the same order</source>
      <translation>{first} 的前 {run:,} 条合并规则（共 {total:,} 条）{second} 也都有，且顺序相同</translation>
    </message>
    <message>
      <source>they share {shared:,} merges, rank correlation {rho:.2f}; the merge lists part at merge {prefix:,}</source>
      <translation>二者共有 {shared:,} 条合并规则，序号相关系数 {rho:.2f}；合并列表从第 {prefix:,} 条起分道扬镳</translation>
    </message>
    <message>
      <source>they share {shared:,} merges; the merge lists part at merge {prefix:,}</source>
      <translation>二者共有 {shared:,} 条合并规则；合并列表从第 {prefix:,} 条起分道扬镳</translation>
    </message>
    <message>
      <source>{other}'s vocabulary holds {share} of {base}'s {size:,} tokens</source>
      <translation>{other} 的词表包含 {base} 的 {size:,} 个词元中的 {share}</translation>
    </message>
    <message>
      <source>ids 0–{last:,} stand for the same tokens in both</source>
      <translation>ID 0–{last:,} 在二者中表示相同的词元</translation>
    </message>
    <message>
      <source>{n:,} shared tokens have the same id</source>
      <translation>{n:,} 个共有词元的 ID 相同</translation>
    </message>
    <message>
      <source>{longer} extends {shorter}</source>
      <translation>{longer} 扩展自 {shorter}</translation>
    </message>
    <message>
      <source>{other} was very likely derived from {base}</source>
      <translation>{other} 很可能派生自 {base}</translation>
    </message>
    <message>
      <source>{a} and {b} very likely share an ancestor</source>
      <translation>{a} 与 {b} 很可能有共同的来源</translation>
    </message>
    <message>
      <source>{other} holds nearly all of {base}'s tokens, but not in {base}'s order: related, or trained on similar data</source>
      <translation>{other} 几乎包含 {base} 的全部词元，但顺序与 {base} 不同：二者相关，或在相似的数据上训练</translation>
    </message>
    <message>
      <source>{a} and {b} share most tokens (Jaccard {jaccard:.2f}) but neither contains the other</source>
      <translation>{a} 与 {b} 的词元大多相同（Jaccard {jaccard:.2f}），但互不包含</translation>
    </message>
    <message>
      <source>Probably not derived, though {other} holds most of {base}'s tokens (neither follows the other's merge order; similar training text?)</source>
      <translation>大概不是派生关系，尽管 {other} 包含 {base} 的大部分词元（二者都不遵循对方的合并顺序；训练文本相似？）</translation>
    </message>
    <message>
      <source>No sign that one was derived from the other</source>
      <translation>没有迹象表明一方派生自另一方</translation>
    </message>
    <message>
      <source>they share {shared:,} tokens (Jaccard {jaccard:.2f}), what tokenizers trained on similar text all learn</source>
      <translation>二者共有 {shared:,} 个词元（Jaccard {jaccard:.2f}），在相似文本上训练的分词器都会学到这些</translation>
    </message>
    <message>
      <source>{head}: {findings}.</source>
      <translation>{head}：{findings}。</translation>
    </message>
    <message>
      <source>; </source>
      <translation>；</translation>
    </message>
    <message>
      <source>{verdict} Merges not compared: {note}.</source>
      <translation>{verdict}未比较合并规则：{note}。</translation>
    </message>
  </context>
  <context>
    <name>paths</name>
    <message>
      <source>a named pipe (FIFO)</source>
      <translation>命名管道（FIFO）</translation>
    </message>
    <message>
      <source>a character device</source>
      <translation>字符设备</translation>
    </message>
    <message>
      <source>a block device</source>
      <translation>块设备</translation>
    </message>
    <message>
      <source>a socket</source>
      <translation>套接字</translation>
    </message>
    <message>
      <source>a folder</source>
      <translation>文件夹</translation>
    </message>
    <message>
      <source>a file</source>
      <extracomment>What the callers say they expect (`what`), in words translatable where the app shows them; a `what` not listed here is used as it is.</extracomment>
      <translation>文件</translation>
    </message>
    <message>
      <source>a text file</source>
      <translation>文本文件</translation>
    </message>
    <message>
      <source>a tokenizer file</source>
      <translation>分词器文件</translation>
    </message>
    <message>
      <source>a settings file</source>
      <translation>设置文件</translation>
    </message>
    <message>
      <source>a chat template file</source>
      <translation>对话模板文件</translation>
    </message>
    <message>
      <source>a vocabulary file</source>
      <translation>词表文件</translation>
    </message>
    <message>
      <source>a merges file</source>
      <translation>合并规则文件</translation>
    </message>
    <message>
      <source>a GGUF file</source>
      <translation>GGUF 文件</translation>
    </message>
    <message>
      <source>a training file</source>
      <translation>训练文件</translation>
    </message>
    <message>
      <source>a conversation file</source>
      <translation>对话文件</translation>
    </message>
    <message>
      <source>a regular file</source>
      <translation>普通文件</translation>
    </message>
    <message>
      <source>a special file</source>
      <translation>特殊文件</translation>
    </message>
    <message>
      <source>permission denied</source>
      <translation>权限不足</translation>
    </message>
    <message>
      <source>no such file or folder</source>
      <translation>没有这个文件或文件夹</translation>
    </message>
    <message>
      <source>is a loop of symbolic links</source>
      <translation>是符号链接循环</translation>
    </message>
    <message>
      <source>a part of the path is not a folder</source>
      <translation>路径中有一部分不是文件夹</translation>
    </message>
    <message>
      <source>the name is too long</source>
      <translation>名称太长</translation>
    </message>
    <message>
      <source>is a folder, expected a file</source>
      <translation>是文件夹，应为文件</translation>
    </message>
    <message>
      <source>cannot read: {error}</source>
      <translation>无法读取：{error}</translation>
    </message>
    <message>
      <source>is {what}, not a folder (the path ends in '{sep}')</source>
      <translation>是{what}，不是文件夹（路径以 '{sep}' 结尾）</translation>
    </message>
    <message>
      <source>is a broken symbolic link</source>
      <translation>是失效的符号链接</translation>
    </message>
    <message>
      <source>the name holds a NUL character</source>
      <translation>名称中含有 NUL 字符</translation>
    </message>
    <message>
      <source>is a folder, expected {what}</source>
      <translation>是文件夹，应为{what}</translation>
    </message>
    <message>
      <source>is {kind}, not a regular file{hint}</source>
      <translation>是{kind}，不是普通文件{hint}</translation>
    </message>
    <message>
      <source>is {kind}, expected a folder</source>
      <translation>是{kind}，应为文件夹</translation>
    </message>
    <message>
      <source>names a folder (the path ends in '{sep}'); give the name of the file to write</source>
      <translation>指向的是文件夹（路径以 '{sep}' 结尾）；请给出要写入的文件名</translation>
    </message>
    <message>
      <source>permission denied (its folder cannot be written)</source>
      <translation>权限不足（无法写入其所在文件夹）</translation>
    </message>
    <message>
      <source>{size} bytes</source>
      <translation>{size} 字节</translation>
    </message>
    <message>
      <source>file is {size}, more than the {limit} tokviz reads whole here{hint}</source>
      <translation>文件大小为 {size}，超过了 tokviz 在此处整体读取的上限 {limit}{hint}</translation>
    </message>
    <message>
      <source>file is more than the {limit} tokviz reads whole here{hint}</source>
      <translation>文件超过了 tokviz 在此处整体读取的上限 {limit}{hint}</translation>
    </message>
    <message>
      <source>more than {limit} of input, more than tokviz reads whole here{hint}</source>
      <translation>输入超过 {limit}，超过了 tokviz 在此处整体读取的上限{hint}</translation>
    </message>
    <message>
      <source>out of memory after reading {size} of input{hint}</source>
      <translation>读取 {size} 输入后内存不足{hint}</translation>
    </message>
    <message>
      <source>the file is {encoding} text, not UTF-8, which tokviz reads (convert it: iconv -f {encoding} -t UTF-8)</source>
      <translation>该文件是 {encoding} 文本，不是 tokviz 读取的 UTF-8（请转换：iconv -f {encoding} -t UTF-8）</translation>
    </message>
    <message>
      <source>the file is {encoding} text, not UTF-8, which tokviz opens (convert it: iconv -f {encoding} -t UTF-8)</source>
      <translation>该文件是 {encoding} 文本，不是 tokviz 打开的 UTF-8（请转换：iconv -f {encoding} -t UTF-8）</translation>
    </message>
    <message>
      <source>the file is {encoding} text, not UTF-8, which tokviz encodes (convert it: iconv -f {encoding} -t UTF-8)</source>
      <translation>该文件是 {encoding} 文本，不是 tokviz 编码的 UTF-8（请转换：iconv -f {encoding} -t UTF-8）</translation>
    </message>
  </context>
  <context>
    <name>train</name>
    <message>
      <source>{words:,} distinct words: counting pairs</source>
      <translation>{words:,} 个不同的词：正在统计词元对</translation>
    </message>
    <message>
      <source>vocab_size {size} is smaller than the {taken} tokens every vocabulary needs here (special and reserved tokens, user-defined symbols, the alphabet)</source>
      <translation>vocab_size {size} 小于此处每个词表都需要的 {taken} 个词元（特殊词元和保留词元、用户定义符号、字母表）</translation>
    </message>
    <message>
      <source>learning merges</source>
      <translation>正在学习合并规则</translation>
    </message>
    <message>
      <source>counting words</source>
      <extracomment>progress(fraction done in [0, 1], what is happening: "counting words", "merge 1200: 'th' + 'e' (4410)"); the message is a tokviz.messages Message or Template (a str: the English, translatable in the GUI)</extracomment>
      <translation>正在统计词</translation>
    </message>
    <message>
      <source>merge {made}: {left!r} + {right!r} ({count})</source>
      <translation>合并 {made}：{left!r} + {right!r}（{count}）</translation>
    </message>
    <message>
      <source>done: {merges} merges, {tokens} tokens</source>
      <translation>完成：{merges} 条合并规则，{tokens} 个词元</translation>
    </message>
    <message>
      <source>vocab_size must be at least 1, got {value}</source>
      <extracomment>cancel() -&gt; True to stop: the trainer raises Cancelled soon after (between two merges / EM steps) how BPE and WordPiece trainers choose among pairs of equal score (tokviz.train.bpe_core's module doc): "hf" the pair of the lowest ids, as HF tokenizers' BpeTrainer; "minbpe" the pair that occurs first in the corpus as it stands, as minbpe (pure Python: slower on a big corpus)</extracomment>
      <translation>vocab_size 至少为 1，当前为 {value}</translation>
    </message>
    <message>
      <source>min_frequency must be 0 or more, got {value}</source>
      <translation>min_frequency 必须不小于 0，当前为 {value}</translation>
    </message>
    <message>
      <source>min_word_count must be at least 1, got {value}</source>
      <translation>min_word_count 至少为 1，当前为 {value}</translation>
    </message>
    <message>
      <source>reserved_tokens must be 0 or more, got {value}</source>
      <translation>reserved_tokens 必须不小于 0，当前为 {value}</translation>
    </message>
    <message>
      <source>character_coverage must be in (0, 1], got {value}</source>
      <translation>character_coverage 必须在 (0, 1] 范围内，当前为 {value}</translation>
    </message>
    <message>
      <source>max_token_length must be at least 1, got {value}</source>
      <translation>max_token_length 至少为 1，当前为 {value}</translation>
    </message>
    <message>
      <source>limit_alphabet must be at least 1, got {value}</source>
      <translation>limit_alphabet 至少为 1，当前为 {value}</translation>
    </message>
    <message>
      <source>pad_to_multiple_of must be at least 1, got {value}</source>
      <translation>pad_to_multiple_of 至少为 1，当前为 {value}</translation>
    </message>
    <message>
      <source>tie_break must be one of {choices}, got {value!r}</source>
      <translation>tie_break 必须是 {choices} 之一，当前为 {value!r}</translation>
    </message>
    <message>
      <source>listed twice among special tokens and user-defined symbols: {tokens}</source>
      <translation>在特殊词元和用户定义符号中重复列出：{tokens}</translation>
    </message>
    <message>
      <source>not UTF-8 text (byte {at} of a block is invalid)</source>
      <translation>不是 UTF-8 文本（某一块的第 {at} 个字节无效）</translation>
    </message>
    <message>
      <source>a corpus item must be a path or a text, got {kind}</source>
      <translation>语料项必须是路径或文本，实际为 {kind}</translation>
    </message>
    <message>
      <source>shrinking_factor must be in (0, 1), got {value}</source>
      <translation>shrinking_factor 必须在 (0, 1) 范围内，当前为 {value}</translation>
    </message>
    <message>
      <source>em_iterations must be at least 1, got {value}</source>
      <translation>em_iterations 至少为 1，当前为 {value}</translation>
    </message>
    <message>
      <source>pieces can be 1 to 250 characters long, not {value}</source>
      <translation>片段长度只能为 1 到 250 个字符，不能是 {value}</translation>
    </message>
    <message>
      <source>vocab_size {size} leaves no room for learned pieces after {fixed} special tokens, reserved tokens, user-defined symbols and byte pieces</source>
      <translation>vocab_size {size} 在容纳 {fixed} 个特殊词元、保留词元、用户定义符号和字节片段后，已没有空间留给学到的片段</translation>
    </message>
    <message>
      <source>the training corpus has no text</source>
      <translation>训练语料中没有文本</translation>
    </message>
    <message>
      <source>{words} distinct words; choosing the alphabet</source>
      <translation>{words} 个不同的词；正在选择字母表</translation>
    </message>
    <message>
      <source>no text is left once the characters outside the alphabet are set aside</source>
      <translation>去掉字母表以外的字符后，已没有剩余文本</translation>
    </message>
    <message>
      <source>the alphabet has {chars} characters but vocab_size leaves room for {budget} pieces: raise vocab_size, or lower character_coverage / limit_alphabet</source>
      <translation>字母表有 {chars} 个字符，但 vocab_size 只留出 {budget} 个片段的空间：请增大 vocab_size，或减小 character_coverage / limit_alphabet</translation>
    </message>
    <message>
      <source>finding seed pieces</source>
      <translation>正在寻找种子片段</translation>
    </message>
    <message>
      <source>{n} seed pieces</source>
      <translation>{n} 个种子片段</translation>
    </message>
    <message>
      <source>EM round {round}, step {step}: {n} pieces, objective {objective:.4g}</source>
      <translation>EM 第 {round} 轮第 {step} 步：{n} 个片段，目标值 {objective:.4g}</translation>
    </message>
    <message>
      <source>pruned to {n} pieces</source>
      <translation>剪枝至 {n} 个片段</translation>
    </message>
    <message>
      <source>done: {tokens} tokens (the corpus offered {missing} pieces too few for {vocab_size})</source>
      <translation>完成：{tokens} 个词元（语料提供的片段比 {vocab_size} 少 {missing} 个）</translation>
    </message>
    <message>
      <source>done: {tokens} tokens</source>
      <translation>完成：{tokens} 个词元</translation>
    </message>
    <message>
      <source>cannot read training file: {error}</source>
      <translation>无法读取训练文件：{error}</translation>
    </message>
    <message>
      <source>counting words: {name}, {done:.1f} of {total:.1f} MB</source>
      <translation>正在统计词：{name}，{done:.1f} / {total:.1f} MB</translation>
    </message>
    <message>
      <source>training on the {n} most frequent of {words} distinct words (max_symbols {max_symbols})</source>
      <translation>在 {words} 个不同的词中，用最常见的 {n} 个训练（max_symbols {max_symbols}）</translation>
    </message>
    <message>
      <source>the C Unigram trainer (tokviz._unigramtrain) is not built</source>
      <translation>C 版 Unigram 训练器（tokviz._unigramtrain）未编译</translation>
    </message>
    <message>
      <source>{unk} is a user-defined symbol; list it among the special tokens instead</source>
      <translation>{unk} 是用户定义符号；请改为将它列入特殊词元</translation>
    </message>
    <message>
      <source>a learned piece equals a fixed token: {tokens}</source>
      <translation>学到的片段与固定词元相同：{tokens}</translation>
    </message>
    <message>
      <source>{words} distinct words</source>
      <translation>{words} 个不同的词</translation>
    </message>
    <message>
      <source>unknown model {model!r} (choose from {choices})</source>
      <translation>未知模型 {model!r}（可选：{choices}）</translation>
    </message>
    <message>
      <source>no training files given</source>
      <translation>没有给出训练文件</translation>
    </message>
    <message>
      <source>--pattern applies to bytelevel-bpe only, not {model}</source>
      <translation>--pattern 只适用于 bytelevel-bpe，不适用于 {model}</translation>
    </message>
    <message>
      <source>end_of_word must be 'separate', 'glued' or 'none', got {value!r}</source>
      <translation>end_of_word 必须是 'separate'、'glued' 或 'none'，而不是 {value!r}</translation>
    </message>
    <message>
      <source>the end-of-word marker must be a non-empty text without white space, got {value!r}</source>
      <translation>词尾标记必须是不含空白的非空文本，而不是 {value!r}</translation>
    </message>
  </context>
  <context>
    <name>vocab_edit</name>
    <message>
      <source>, </source>
      <translation>，</translation>
    </message>
    <message>
      <source>already in the vocabulary: {tokens}</source>
      <translation>已在词表中：{tokens}</translation>
    </message>
    <message>
      <source>a token cannot be empty</source>
      <translation>词元不能为空</translation>
    </message>
    <message>
      <source>tokens cannot be added to this {model} model: its whole-text normalizer is not sentencepiece's</source>
      <translation>无法向此 {model} 模型添加词元：其全文规范化器不是 sentencepiece 的</translation>
    </message>
    <message>
      <source>this sentencepiece tokenizer has added tokens outside its pieces; new pieces would take their ids</source>
      <translation>此 sentencepiece 分词器有片段之外的添加的词元；新片段会占用它们的 ID</translation>
    </message>
    <message>
      <source>{token!r} holds a space: sentencepiece writes spaces as '▁' before it looks for pieces, so a piece with a space would never be kept whole</source>
      <translation>{token!r} 含有空格：sentencepiece 在查找片段前把空格写成 '▁'，所以含空格的片段永远不会被整体保留</translation>
    </message>
    <message>
      <source>the multiple must be at least 1, got {multiple}</source>
      <translation>倍数至少为 1，而不是 {multiple}</translation>
    </message>
    <message>
      <source>merges can only be added to a BPE model, not {model}</source>
      <translation>只能向 BPE 模型添加合并规则，不能向 {model} 添加</translation>
    </message>
    <message>
      <source>this BPE ranks its merges by token id (tiktoken style): add tokens, not merges</source>
      <translation>此 BPE 按词元 ID 排列合并规则（tiktoken 风格）：请添加词元，而不是合并规则</translation>
    </message>
    <message>
      <source>no merge given</source>
      <translation>未给出合并规则</translation>
    </message>
    <message>
      <source>rank {rank} is outside the merge list (0 to {last})</source>
      <translation>序号 {rank} 超出合并列表范围（0 到 {last}）</translation>
    </message>
    <message>
      <source>{part!r} is made by merge {maker} ({made}), listed after merge {user} ({a} {b}) that uses it: list it first</source>
      <translation>{part!r} 由合并 {maker}（{made}）生成，却列在使用它的合并 {user}（{a} {b}）之后：请把它列在前面</translation>
    </message>
    <message>
      <source>'{a} {b}' is already merge {rank} of this model</source>
      <translation>'{a} {b}' 已是此模型的合并 {rank}</translation>
    </message>
    <message>
      <source>'{a} {b}' is listed twice</source>
      <translation>'{a} {b}' 列出了两次</translation>
    </message>
    <message>
      <source>not tokens of this model, nor made by an earlier merge of this edit: {tokens}</source>
      <translation>既不是此模型的词元，也不由本次编辑中前面的合并生成：{tokens}</translation>
    </message>
    <message>
      <source>; </source>
      <translation>；</translation>
    </message>
    <message>
      <source>tokens can only be removed from a BPE model with a merge list</source>
      <translation>只能从带合并列表的 BPE 模型中删除词元</translation>
    </message>
    <message>
      <source>not tokens of this model: {tokens}</source>
      <translation>不是此模型的词元：{tokens}</translation>
    </message>
  </context>
</TS>
