"""The web page as people use it, in real headless Chromium (Debian's) against a live server:
screenshots at desktop and phone widths (kept under .graphagents/artifacts/screenshots), Korean
rendered with the bundled font on a machine without CJK fonts, no console errors, keyboard-only use,
axe-core with no serious or critical violation, the session list, text2sql's table and chart, the
slot-filling checklist, the rag view."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"


def watch(page: Any) -> list[str]:
    """Console errors and uncaught exceptions of the page."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


def say(page: Any, text: str, timeout: int = 60_000) -> None:
    page.fill("#input", text)
    page.press("#input", "Enter")
    page.wait_for_selector("#status[data-done]", timeout=timeout)
    page.wait_for_function("() => !document.querySelector('.msg.pending')", timeout=timeout)


def open_agent(page: Any, url: str, agent: str) -> None:
    page.goto(f"{url}/?agent={agent}")
    page.wait_for_selector("#session-id:has-text('session')", timeout=60_000)


def axe_violations(page: Any) -> list[str]:
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("""async () => {
        const r = await axe.run(document, { resultTypes: ["violations"] });
        return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
            .map((v) => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
    }""")
    return list(found)


def shoot(page: Any, folder: Path, name: str) -> None:
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    print(f"screenshot: {path}")


KOREAN_GLYPHS = """async () => {
    await document.fonts.ready;
    await document.fonts.load("16px 'Noto Sans KR'", "가나다");
    const canvas = document.createElement("canvas");
    canvas.width = 64; canvas.height = 64;
    const g = canvas.getContext("2d", { willReadFrequently: true });
    const ink = (ch, font) => {
        g.clearRect(0, 0, 64, 64); g.font = font; g.fillStyle = "#000"; g.fillText(ch, 8, 44);
        return Array.from(g.getImageData(0, 0, 64, 64).data.filter((_, i) => i % 4 === 3)).join(",");
    };
    const page = getComputedStyle(document.querySelector(".msg.agent")).fontFamily;
    const faces = async (text) => (await document.fonts.load("16px 'Noto Sans KR'", text)).length;
    return {
        faces: [await faces("가"), await faces("㎡"), await faces("①")],
        check: document.fonts.check("16px 'Noto Sans KR'", "안녕하세요"),
        family: page,
        // tofu draws every character as the same box; real glyphs differ from each other and from it
        distinct: ink("가", "40px 'Noto Sans KR'") !== ink("나", "40px 'Noto Sans KR'"),
        notTofu: ink("가", "40px 'Noto Sans KR'") !== ink("가", "40px monospace"),
        fallbackIsTofu: ink("가", "40px monospace") === ink("나", "40px monospace"),
    };
}"""


def test_slotfill_checklist_korean_screens_and_accessibility(browser: Any, server: Any, screenshots: Path) -> None:
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    errors = watch(page)
    open_agent(page, server.url, "slotfill")
    assert page.locator("#samples button").all_text_contents().count("안녕하세요") == 1  # no duplicate samples
    for text in ("안녕하세요", "네", "네", "네", "OTP로 하고 1회 300만원", "하루 천만원"):
        say(page, text)
    state = page.locator("#state")
    # a form-like checklist: Korean labels, amounts in won, confirmed and pending marks, the stage
    assert state.locator("[data-slot='transfer_limit_per_time'] .value").text_content() == "3,000,000원"
    assert state.locator("[data-slot='transfer_limit_per_day'] .value").text_content() == "10,000,000원"
    assert state.locator("[data-slot='security_medium'] .label").text_content() == "보안매체"
    assert state.locator("[data-group='basic_info'] .group-mark").text_content() == "✓ 확인 완료"
    current = state.locator(".form-group[aria-current='step']")
    assert current.get_attribute("data-group") == "internet_banking_basic"
    assert current.locator(".group-mark").text_content() == "확인 대기"
    assert state.locator("[data-group='internet_banking_alerts'] .form-field.empty").count() == 3
    assert state.locator("[data-slot='use_internet_banking'] .value").text_content() == "신청"
    assert "5000000" not in state.inner_text() and "true" not in state.inner_text()

    glyphs = page.evaluate(KOREAN_GLYPHS)
    assert glyphs["family"].startswith('"Noto Sans KR"')
    assert glyphs["check"] and glyphs["distinct"] and glyphs["notTofu"], glyphs
    assert all(n >= 1 for n in glyphs["faces"]), glyphs  # bundled faces cover Hangul and its symbols (㎡, ①)
    assert glyphs["fallbackIsTofu"], "this machine has a CJK font: the tofu check proves nothing here"

    # the newest bubble is in view, whole
    last = page.locator(".msg.agent").last.bounding_box()
    box = page.locator("#messages").bounding_box()
    assert last["y"] + last["height"] <= box["y"] + box["height"] + 1

    shoot(page, screenshots, "slotfill-desktop-light")
    assert axe_violations(page) == []
    page.emulate_media(color_scheme="dark")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(13, 18, 28)"
    shoot(page, screenshots, "slotfill-desktop-dark")
    assert axe_violations(page) == []
    page.emulate_media(color_scheme="light")
    page.click("#theme-toggle")  # system -> light -> dark, remembered
    page.click("#theme-toggle")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    page.click("#theme-toggle")
    assert page.evaluate("document.documentElement.dataset.theme") is None

    for width in (420, 360):
        page.set_viewport_size({"width": width, "height": 800})
        page.wait_for_timeout(100)
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing sticks out
        assert page.locator("#messages").bounding_box()["width"] >= width - 60  # not an 80 px column
        assert page.locator("#input").bounding_box()["width"] >= width * 0.5
    last = page.locator(".msg.agent").last.bounding_box()
    box = page.locator("#messages").bounding_box()
    assert box["y"] <= last["y"] and last["y"] + last["height"] <= box["y"] + box["height"] + 1  # still in view
    shoot(page, screenshots, "slotfill-phone-360")
    assert axe_violations(page) == []
    assert errors == []


def test_keyboard_only(browser: Any, server: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    errors = watch(page)
    open_agent(page, server.url, "example")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    page.keyboard.press("Enter")  # "skip to the message box"
    assert page.evaluate("document.activeElement.id") == "input"
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"  # focus is visible
    page.keyboard.type("name:Kim")
    page.keyboard.press("Enter")
    page.wait_for_selector(".msg.agent:has-text('Hello Kim! Favourite colour?')", timeout=20_000)
    page.keyboard.type("teal")
    page.keyboard.press("Enter")
    page.wait_for_selector(".msg.agent:has-text('Kim likes teal.')", timeout=20_000)
    # Tab reaches the send button and the session list without a mouse; each focus is visible
    seen = set()
    for _ in range(30):
        page.keyboard.press("Tab")
        active = page.evaluate("[document.activeElement.id, document.activeElement.className,"
                               " getComputedStyle(document.activeElement).outlineStyle,"
                               " document.activeElement === document.body]")
        if active[3]:
            continue  # past the last control, focus leaves the page for a moment
        seen.add(active[0] or active[1])
        assert active[2] != "none", active
    assert "send" in seen and "session-open" in seen
    assert errors == []


def test_sessions_list_rename_resume_delete_and_reload(browser: Any, server: Any) -> None:
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    errors = watch(page)
    open_agent(page, server.url, "example")
    say(page, "name:Mina")
    first = page.inner_text("#session-id").split()[-1]
    assert f"session={first}" in page.url  # the URL names the conversation
    item = page.locator(f"#session-list [data-session='{first}']")
    item.locator(".session-title:has-text('name:Mina')").wait_for(timeout=10_000)
    assert item.get_attribute("aria-current") == "true"

    item.locator(".session-rename").click()
    page.fill(f"#session-list [data-session='{first}'] input", "미나의 색")
    page.press(f"#session-list [data-session='{first}'] input", "Enter")
    item.locator(".session-title:has-text('미나의 색')").wait_for(timeout=10_000)

    # reload by URL: the conversation comes back and goes on where it stopped
    page.reload()
    page.wait_for_selector(".msg.agent:has-text('Hello Mina! Favourite colour?')", timeout=20_000)
    assert page.locator(".msg.user").first.text_content() == "name:Mina"
    say(page, "teal")
    page.wait_for_selector(".msg.agent:has-text('Mina likes teal.')")

    page.click("#new-session")
    page.wait_for_function(f"() => !document.querySelector('#session-id').textContent.includes('{first}')")
    assert page.locator(".msg").count() == 0
    page.locator(f"#session-list [data-session='{first}'] .session-open").click()
    page.wait_for_selector(".msg.agent:has-text('Mina likes teal.')", timeout=20_000)
    assert page.inner_text("#session-id").endswith(first)
    shared = page.url

    page.locator(f"#session-list [data-session='{first}'] .session-delete").click()
    page.locator(f"#session-list [data-session='{first}'] .session-delete-confirm").click()
    page.wait_for_selector(f"#session-list [data-session='{first}']", state="detached", timeout=10_000)
    assert not page.inner_text("#session-id").endswith(first)
    assert errors == []
    # the deleted conversation's URL: told in one line, and a fresh session starts
    page.goto(shared)
    page.wait_for_selector(".msg.error:has-text('찾을 수 없어요')", timeout=20_000)
    page.wait_for_function(f"() => !document.querySelector('#session-id').textContent.includes('{first}')"
                           " && document.querySelector('#session-id').textContent.startsWith('session ')")


def test_text2sql_answer_sql_paged_table_csv_and_chart(browser: Any, server: Any, screenshots: Path) -> None:
    page = browser.new_page(viewport={"width": 1440, "height": 900}, accept_downloads=True)
    errors = watch(page)
    open_agent(page, server.url, "text2sql")
    say(page, "고객별 주문 건수", timeout=120_000)
    bubble = page.locator(".msg.agent").last
    reply = bubble.locator(".reply-text").text_content()
    assert not re.search(r"^\d+\. ", reply, re.M) and "결과 1000행" not in reply  # no rows repeated in text
    assert "대화가 끝났어요" not in page.inner_text("#status")
    sql = bubble.locator("pre.sql").text_content()
    assert sql.startswith("SELECT\n") and "\nFROM " in sql and "\nGROUP BY" in sql  # laid out, not one line
    assert bubble.locator("button.copy-sql").count() == 1

    table = bubble.locator(".artifact.table")
    total = int(table.locator(".row-count").get_attribute("data-total"))
    assert total > 1000  # the true count, not the 1,000 rows kept
    assert table.locator(".row-count").text_content() == f"전체 {total:,}행"
    assert table.locator("tbody tr").count() == 20
    assert table.locator(".page-range").text_content() == "1–20행 / 1,000행"
    cell = table.locator("tbody tr").first.locator("td.num").last
    assert cell.evaluate("td => getComputedStyle(td).textAlign") == "right"
    first_ids = table.locator("tbody tr td:first-child").all_text_contents()
    table.locator("button.next-page").click()
    assert table.locator(".page-range").text_content() == "21–40행 / 1,000행"
    assert table.locator("tbody tr td:first-child").all_text_contents() != first_ids
    with page.expect_download() as download:
        table.locator("button.download-csv").click()
    data = Path(download.value.path()).read_bytes().decode("utf-8")
    assert data.startswith("\ufeff")
    rows = list(csv.reader(io.StringIO(data[1:])))
    assert len(rows) == 1001 and rows[0] == table.locator("thead th").all_text_contents()

    say(page, "2024년 월별 주문 건수", timeout=120_000)
    bubble = page.locator(".msg.agent").last
    canvas = bubble.locator(".artifact.chart canvas")
    assert canvas.evaluate("c => [Chart.getChart(c).config.type, Chart.getChart(c).data.labels.length]") == ["line", 12]
    nums = bubble.locator("tbody td.num").all_text_contents()
    assert nums and all(re.fullmatch(r"\d{1,3}(,\d{3})*", n) for n in nums)
    shoot(page, screenshots, "text2sql-desktop")
    assert axe_violations(page) == []
    page.set_viewport_size({"width": 360, "height": 780})
    page.wait_for_timeout(150)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    shoot(page, screenshots, "text2sql-phone-360")
    assert errors == []


RAG_STATE: dict[str, Any] = {
    "intent": "moderate", "dynamic_k": 5, "emergency": False,
    "profile": {"demographics": {"age": 65, "sex": "male"}, "conditions": ["제2형 당뇨"], "symptoms": ["어지럼"],
                "medications": [{"name": "metformin", "dose": "500 mg", "frequency": "하루 2회"}],
                "vitals": {"bp": "150/95"}, "labs": {"HbA1c": 7.9}},
    "profile_summary": "65세 남성, 제2형 당뇨, metformin 복용",
    "token_plan": {"window": 12800, "estimator": "chars/2", "sections": {
        "system": {"budget": 640, "used": 512}, "profile": {"budget": 1280, "used": 300},
        "evidence": {"budget": 6400, "used": 7000}, "history": {"budget": 1280, "used": 0},
        "query": {"budget": 640, "used": 40}, "generation": {"budget": 2560, "used": 0}}},
    "retrieved_docs": [
        {"id": "d1", "title": "당뇨 환자의 저혈당", "text": "메트포르민 단독으로는 저혈당이 드물어요.", "score": 0.0321,
         "bm25_rank": 3, "dense_rank": 1, "iteration": 0},
        {"id": "d2", "title": "고혈압과 어지럼", "text": "혈압약 조정 후 어지럼이 생길 수 있어요.", "score": 0.0287,
         "bm25_rank": None, "dense_rank": 2, "iteration": 1}],
    "refine_iteration_logs": [
        {"iteration": 1, "overall": 0.62, "grounding": 0.7, "completeness": 0.5, "decision": "retrieve_again",
         "reason": "혈압 정보 부족", "query": "고혈압 어지럼 원인"},
        {"iteration": 2, "overall": 0.86, "grounding": 0.9, "completeness": 0.8, "decision": "accept", "reason": "충분",
         "query": ""}],
    "cache_hit": False, "cache_similarity_score": None, "answer": "어지럼은 ... [1][2]",
}


def test_rag_view_from_its_state(browser: Any, server: Any) -> None:
    """rag's public state (fixed in INTERFACES.md) through rag's own page view module (/views/rag.js)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = watch(page)
    open_agent(page, server.url, "example")
    page.evaluate("""async ([state]) => {
        const rag = await GA.pageView("rag");
        const live = [{ iteration: 3, overall: 0.9, decision: "accept", reason: "live" }];
        const ctx = { ...GA.moduleContext("rag"), extra: { decisions: live } };
        document.getElementById("state").replaceChildren(GA.renderStateView(rag, state, ctx));
        const cite = { kind: "citation", ref: "[1]", source: "당뇨 환자의 저혈당", text: "…" };
        const cites = GA.renderArtifacts([cite]);
        document.getElementById("state").append(...cites);
    }""", [RAG_STATE])
    view = page.locator("#state .rag-view")
    assert "65세 남성" in view.inner_text()
    assert "metformin 500 mg 하루 2회" in view.inner_text() and "나이 65, 성별 남성" in view.inner_text()
    bars = view.locator(".bar-row")
    assert bars.count() == 6
    assert view.locator(".bar-row[data-section='evidence'] .bar-fill.over").count() == 1
    assert view.locator(".bar-row[data-section='system'] .num").text_content() == "512 / 640"
    assert view.locator(".passage[data-doc='d1'] .passage-head .num").text_content() == "점수 0.032"
    assert "BM25 3위" in view.locator(".passage[data-doc='d1']").inner_text()
    assert view.locator(".refine-log li").count() == 3  # two logged, one live from a decision event
    assert view.locator(".refine-log li.retrieve_again").text_content().startswith("1회차 · 다시 검색 · 종합 0.62")
    assert page.locator("#state .artifact.citation").text_content().startswith("[1] 당뇨 환자의 저혈당")
    assert axe_violations(page) == []
    page.click("#state .clear-profile")  # DELETE /api/agents/rag/profile, the caller's own
    page.wait_for_selector("#state .profile-note:has-text('지웠어요')", timeout=20_000)
    assert errors == []


def test_tableqa_upload_control(browser: Any, server: Any) -> None:
    """tableqa's page view puts its upload control under the description (its own route, POST
    /api/agents/tableqa/uploads): upload, pick it, and a new session takes it."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = watch(page)
    open_agent(page, server.url, "tableqa")
    has_route = page.evaluate("async () => Boolean((await (await fetch('/openapi.json')).json())"
                              ".paths['/api/agents/tableqa/uploads'])")
    assert has_route
    page.wait_for_selector("#upload-box", state="visible", timeout=10_000)
    if has_route:
        table = b"department,employees\nSales,12\nDev,30\nHR,5\n"
        page.set_input_files("#upload-file", files=[{"name": "부서 인원.csv", "mimeType": "text/csv", "buffer": table}])
        page.wait_for_function("() => !document.querySelector('.upload-note').textContent.includes('올리는 중')",
                               timeout=20_000)
        assert "3행" in page.inner_text(".upload-note"), page.inner_text(".upload-note")
        assert page.locator("#upload-list input[type=checkbox]:checked").count() == 1
        before = page.inner_text("#session-id")  # the old session shows until the new one is created
        page.click("#new-session")
        page.wait_for_function("old => document.querySelector('#session-id').textContent !== old", arg=before)
        say(page, "Which department has the most employees?", timeout=120_000)
        assert page.locator(".msg.error").count() == 0
        print("tableqa:", page.locator(".msg.agent").last.inner_text()[:300], page.inner_text("#state")[:600])
        assert "Dev" in page.locator("#state .tableqa-view").inner_text()
        assert page.locator("#state .tableqa-view .step-card").count() >= 1
    # a table as its step creates it (a tool result), before the turn's state has it
    page.evaluate("""async () => document.getElementById("state").replaceChildren(GA.renderStateView(
        await GA.pageView("tableqa"), {}, { extra: { live: [{ id: "t1", step: 1, action: "Operate",
        instruction: "부서별 인원", rows: 3, columns: ["부서", "인원"] }] } }))""")
    assert page.locator("#state .live-tables [data-table='t1']").inner_text().startswith("1. Operate")
    assert "3행 × 2열" in page.locator("#state .live-tables").inner_text()
    assert errors == []


def test_the_conversation_is_the_main_thing_at_1280x800(browser: Any, server: Any) -> None:
    """At a laptop's 1280x800 the description, options and sample chips fold away once the
    conversation starts (they took all but ~330 px), and one button brings them back."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors = watch(page)
    open_agent(page, server.url, "rag")  # the longest description and three samples
    assert page.locator("#samples button").count() == 3 and page.locator("#agent-description").is_visible()
    assert not page.locator("#intro-toggle").is_visible()
    say(page, "안녕하세요", timeout=120_000)
    messages = page.locator("#messages").bounding_box()
    assert messages["height"] >= 0.6 * 800, messages  # the main thing on the screen
    assert not page.locator("#agent-description").is_visible() and not page.locator("#samples").is_visible()
    page.click("#intro-toggle")
    assert page.locator("#agent-description").is_visible() and page.locator("#samples button").count() == 3
    assert page.get_attribute("#intro-toggle", "aria-expanded") == "true"
    page.click("#intro-toggle")
    assert not page.locator("#samples").is_visible()
    page.click("#new-session")  # a new conversation shows the introduction again
    page.wait_for_function("() => !document.querySelector('#chat-pane').classList.contains('has-messages')")
    assert page.locator("#samples").is_visible()
    assert errors == []


def test_a_markdown_document_is_rendered_and_cannot_inject_markup(browser: Any, server: Any) -> None:
    """A document artifact in Markdown (supervisor's draft) is drawn as headings, lists and tables; raw
    HTML and script links in it stay text."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = watch(page)
    open_agent(page, server.url, "example")
    text = ("# 주택임대차 계약서 초안\n\n## 계약 내용\n\n- [ ] 보증금 **3억원** — 근거: 「주택임대차보호법」 제4조\n"
            "- [x] 확정일자\n\n1. 첫째\n2. 둘째\n\n| 항목 | 값 |\n| --- | --- |\n| 월차임 | `미기재` |\n\n"
            "<img src=x onerror=\"window.hacked=1\"> [링크](javascript:window.hacked=2) [법령](https://law.go.kr)")
    page.evaluate("""([text]) => {
        const doc = { kind: "document", id: "lease", title: "계약서", text, metadata: { format: "markdown" } };
        document.getElementById("messages").append(...GA.renderArtifacts([doc]));
    }""", [text])
    doc = page.locator("#messages .artifact.document .markdown")
    assert doc.locator("h3").text_content() == "주택임대차 계약서 초안"
    assert doc.locator("h4").text_content() == "계약 내용"
    tasks = doc.locator("li.task")
    assert tasks.count() == 2 and tasks.first.locator("strong").text_content() == "3억원"
    assert doc.locator("ol li").all_text_contents() == ["첫째", "둘째"]
    assert doc.locator("table.md-table td code").text_content() == "미기재"
    assert doc.locator("img").count() == 0 and "<img src=x" in doc.inner_text()  # raw HTML stays text
    links = doc.locator("a")
    assert links.count() == 1 and links.first.get_attribute("href") == "https://law.go.kr"  # no javascript: link
    assert "##" not in doc.inner_text()
    assert page.evaluate("window.hacked === undefined")
    assert errors == []
