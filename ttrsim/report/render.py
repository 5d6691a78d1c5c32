"""The renderers: a :class:`~ttrsim.report.blocks.Document` as Markdown (charts
linked from ``charts/``, tables from ``tables/``) or as one self-contained HTML
page that reads on a phone (a viewport tag; charts embedded as PNG, or inline
SVG; the CSV tables embedded as download links, ``attachments``; no scripts, no
external files). The :class:`~ttrsim.report.blocks.Contents` block becomes
links to every section.

>>> from ttrsim.report.blocks import Document
>>> doc = Document()
>>> doc.h(2, "Win rates")
>>> doc.p("A **shared** win counts `1/k`.")
>>> print(markdown(doc))
## Win rates
<BLANKLINE>
A **shared** win counts `1/k`.
<BLANKLINE>
>>> html(doc, "ttrsim report").splitlines()[-4:-2]
['<h2 id="win-rates">Win rates</h2>', '<p>A <strong>shared</strong> win counts <code>1/k</code>.</p>']
>>> _inline_html("[csv](tables/a.csv)", {"tables/a.csv": "data:text/csv;base64,YQo="})
'<a href="data:text/csv;base64,YQo=" download="a.csv">csv</a>'
"""
from __future__ import annotations

import base64
import html as _html
import re

from .blocks import Bullets, Chart, Contents, Document, Heading, Note, Paragraph, Table

__all__ = ["markdown", "html"]


# --------------------------------------------------------------------------- Markdown

def markdown(doc: Document) -> str:
    """The document as Markdown."""
    out = []
    for b in doc.blocks:
        match b:
            case Heading():
                out.append(f"{'#' * b.level} {b.text}\n")
            case Paragraph():
                out.append(b.text + "\n")
            case Note():
                out.append(f"> {b.text}\n")
            case Bullets():
                out.append("\n".join(f"- {i}" for i in b.items) + "\n")
            case Table():
                out.append(_md_table(b))
            case Chart():
                src = b.files.get("png") or b.files.get("svg")
                if src:
                    out.append(f"![{b.name.replace('_', ' ')}]({src})\n\n*{b.caption}*\n")
                else:
                    out.append(f"*{b.caption}* (chart not written: no image format chosen)\n")
            case Contents():
                top = min(b.levels)
                out.append("**Contents**\n\n" + "\n".join(f"{'  ' * (h.level - top)}- [{h.text}](#{h.anchor})"
                                                          for h in doc.headings(b.levels)) + "\n")
    return "\n".join(out)


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _md_table(t: Table) -> str:
    lines = ["| " + " | ".join(_md_cell(h) for h in t.headers) + " |",
             "|" + "|".join("---:" if i in t.right else "---" for i in range(len(t.headers))) + "|"]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in t.rows]
    return "\n".join(lines) + "\n" + (f"\n*{t.note}*\n" if t.note else "")


# --------------------------------------------------------------------------- HTML

_MIME = {"csv": "text/csv", "json": "application/json"}


def html(doc: Document, title: str, attachments: dict | None = None) -> str:
    """The document as one HTML page titled ``title``; Markdown-style inline marks
    become HTML. ``attachments``: link target (e.g. ``tables/win_rates.csv``) ->
    its bytes: links to them become ``data:`` links that download the file, so
    the page carries its tables."""
    att = {k: f"data:{_MIME.get(k.rsplit('.', 1)[-1], 'application/octet-stream')};base64,"
              f"{base64.b64encode(v).decode()}" for k, v in (attachments or {}).items()}

    def inline(text):
        return _inline_html(text, att)
    body = []
    for b in doc.blocks:
        match b:
            case Heading():
                body.append(f'<h{b.level} id="{b.anchor}">{inline(b.text)}</h{b.level}>')
            case Paragraph():
                body.append(f"<p>{inline(b.text)}</p>")
            case Note():
                body.append(f'<p class="note">{inline(b.text)}</p>')
            case Bullets():
                body.append("<ul>" + "".join(f"<li>{inline(i)}</li>" for i in b.items) + "</ul>")
            case Table():
                body.append(_html_table(b, inline))
            case Chart():
                body.append(f'<figure>{_html_image(b)}<figcaption>{inline(b.caption)}</figcaption></figure>')
            case Contents():
                body.append(_html_contents(doc.headings(b.levels), min(b.levels)))
    return _HTML_HEAD.format(title=_html.escape(title)) + "\n".join(body) + "\n</body>\n</html>\n"


def _html_contents(heads: list[Heading], top: int) -> str:
    """Nested lists of links to ``heads`` (levels from ``top`` down)."""
    out, depth = ['<nav class="contents"><strong>Contents</strong>'], top - 1
    for h in heads:
        while depth < h.level:
            out.append("<ul>")
            depth += 1
        while depth > h.level:
            out.append("</ul>")
            depth -= 1
        out.append(f'<li><a href="#{h.anchor}">{_html.escape(h.text)}</a></li>')
    out.append("</ul>" * (depth - top + 1) + "</nav>")
    return "".join(out)


def _html_image(c: Chart) -> str:
    if c.png is not None:
        return (f'<img alt="{_html.escape(c.name.replace("_", " "))}" '
                f'src="data:image/png;base64,{base64.b64encode(c.png).decode()}">')
    if c.svg is not None:
        return c.svg[c.svg.find("<svg"):]
    return ""


def _inline_html(text: str, attachments: dict | None = None) -> str:
    """Markdown-ish inline text to HTML: **bold**, `code`, *italic*, [text](link);
    a link to one of ``attachments`` (target -> data URI) downloads it."""
    s = _html.escape(text, quote=False)
    s = re.sub(r"`([^`]+)`", r"<code>\1</code>", s)
    s = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", s)
    s = re.sub(r"(?<![\w*])\*([^*]+)\*(?![\w*])", r"<em>\1</em>", s)

    def link(m):
        label, href = m.group(1), m.group(2)
        if attachments and href in attachments:
            return f'<a href="{attachments[href]}" download="{href.rsplit("/", 1)[-1]}">{label}</a>'
        return f'<a href="{href}">{label}</a>'
    return re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", link, s)


def _html_table(t: Table, inline=_inline_html) -> str:
    head = "".join(f"<th>{_html.escape(h)}</th>" for h in t.headers)
    rows = "".join("<tr>" + "".join(f'<td{" class=r" if i in t.right else ""}>{_html.escape(str(c))}</td>'
                                    for i, c in enumerate(row)) + "</tr>" for row in t.rows)
    note = f'<p><em>{inline(t.note)}</em></p>' if t.note else ""
    return f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>{note}'


_HTML_HEAD = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; max-width: 1100px; margin: 2em auto;
       padding: 0 1em; color: #222; line-height: 1.45; }}
h1, h2, h3 {{ line-height: 1.2; }} h2 {{ border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }}
table {{ border-collapse: collapse; margin: .8em 0; font-size: 0.88em; }}
th, td {{ border: 1px solid #ddd; padding: .25em .6em; }} th {{ background: #f4f4f4; }}
td.r {{ text-align: right; font-variant-numeric: tabular-nums; }}
div.wide {{ overflow-x: auto; }}
figure {{ margin: 1.2em 0; }} figure img, figure svg {{ max-width: 100%; height: auto; }}
figcaption {{ font-size: 0.9em; color: #444; font-style: italic; }}
p.note {{ background: #fff8e1; border-left: 4px solid #f0b400; padding: .4em .8em; }}
code {{ background: #f4f4f4; padding: 0 .2em; }}
nav.contents {{ background: #f8f8f8; border: 1px solid #ddd; padding: .5em 1em; }}
nav.contents ul {{ margin: .2em 0; padding-left: 1.4em; }}
</style>
</head>
<body>
"""
