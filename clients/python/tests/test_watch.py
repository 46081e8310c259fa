"""crawl.wait, agent.wait and agent.follow: an overall timeout by default, progress, questions answered once."""

from __future__ import annotations

import json

import httpx
import pytest
from conftest import answer, async_client, sync_client

from web_access import WaitTimeoutError, _watch


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """A fake clock: sleeping moves it on instead of waiting."""
    now = [1000.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    async def async_sleep(seconds: float) -> None:
        sleep(seconds)

    monkeypatch.setattr(_watch.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(_watch.time, "sleep", sleep)
    monkeypatch.setattr(_watch.asyncio, "sleep", async_sleep)
    return slept


def crawl_state(status: str, completed: int) -> dict:
    return {"success": True, "crawl": {"id": "c1", "status": status, "completed": completed}}


def test_crawl_wait_reports_progress_until_settled(clock):
    states = iter([crawl_state("running", 1), crawl_state("running", 3), crawl_state("settled", 5)])
    progress: list[int] = []
    done = sync_client(lambda r: answer(200, next(states))).crawl.wait(
        "c1", on_progress=lambda s: progress.append(s.crawl.completed)
    )
    assert done.crawl.completed == 5 and progress == [1, 3, 5] and clock == [2.0, 2.0]


def test_crawl_wait_gives_up_after_its_timeout_by_default(clock):
    with pytest.raises(WaitTimeoutError) as raised:
        sync_client(lambda r: answer(200, crawl_state("running", 1))).crawl.wait("c1")
    assert raised.value.timeout_seconds == 30 * 60 and raised.value.last.crawl.status == "running"
    assert sum(clock) == pytest.approx(30 * 60)


def run_state(status: str, paused_for: str | None = None, question: str | None = None, steps: int = 1) -> dict:
    run = {"id": "r1", "status": status, "pausedFor": paused_for, "question": question, "steps": steps}
    return {"success": True, "run": {**run, "outcome": "completed" if status == "settled" else None, "answer": "ok"}}


def test_agent_wait_answers_a_question_once(clock):
    answers: list[dict] = []
    states = [
        run_state("paused", "question", "Which?"),
        run_state("paused", "question", "Which?"),
        run_state("settled"),
    ]

    def gateway(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            answers.append(json.loads(request.content))
            return answer(200, run_state("running"))
        return answer(200, states.pop(0))

    asked: list[str] = []
    result = sync_client(gateway).agent.wait("r1", on_question=lambda q, s: asked.append(q) or "blue")
    assert result.run.outcome == "completed"
    assert asked == ["Which?"] and answers == [{"answer": "blue"}], "the same question is not answered twice"


def events(seqs: list[int], status: str, after: int = 0) -> dict:
    return {
        "success": True,
        "status": status,
        "events": [{"seq": s, "at": "t", "level": "step", "kind": "step", "message": "", "data": None} for s in seqs],
        "next": seqs[-1] if seqs else after,
    }


def test_agent_follow_long_polls_from_the_last_sequence_until_settled(clock):
    seen: list[httpx.Request] = []
    answers = iter([events([1, 2], "running"), events([], "running", 2), events([3], "settled")])

    def gateway(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answer(200, next(answers))

    client = sync_client(gateway)
    assert [e.seq for e in client.agent.follow("r1")] == [1, 2, 3]
    assert [r.url.params["after"] for r in seen] == ["0", "2", "2"], "a settled run's last events end it"
    assert all(r.url.params["wait"] == "20" for r in seen) and clock == [], "the server holds the poll, not a sleep"
    assert seen[0].extensions["timeout"]["read"] == 120 + 20, "the attempt outlasts the long poll"


async def test_the_async_waits_behave_alike(clock):
    states = iter([crawl_state("running", 1), crawl_state("settled", 2)])
    progress: list[int] = []

    async def record(state) -> None:
        progress.append(state.crawl.completed)

    done = await async_client(lambda r: answer(200, next(states))).crawl.wait("c1", on_progress=record)
    assert done.crawl.completed == 2 and progress == [1, 2]
    with pytest.raises(WaitTimeoutError):
        await async_client(lambda r: answer(200, run_state("running"))).agent.wait("r1", timeout_seconds=10)
    answers = iter([events([1], "running"), events([2], "settled")])
    client = async_client(lambda r: answer(200, next(answers)))
    assert [e.seq async for e in client.agent.follow("r1")] == [1, 2]
