"""Every model decision point of the rag agent with scripted models: intent, slots, answer, judge,
rewrite; each also with garbage output (the offline result is used and the turn still ends well)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from langchain_core.messages import BaseMessage

from graphagents.llm import GARBAGE
from graphagents.testing import FunctionChatModel


def _role(messages: list[BaseMessage]) -> str:
    text = "\n".join(str(m.content) for m in messages)
    if "메시지를 분류하세요" in text:
        return "intent"
    if "6개 슬롯으로 추출" in text:
        return "slots"
    if "품질을 평가하는 심사위원" in text:
        return "judge"
    if "검색 질의를 다시" in text:
        return "rewrite"
    if "의료 정보 도우미" in text:
        return "baseline"
    return "answer"


class Brain:
    """A scripted model that answers by role; ``replies[role]`` is a string or a function of the prompt."""

    def __init__(self, **replies: str | Callable[[str], str]) -> None:
        self.replies = replies
        self.calls: list[tuple[str, str]] = []

    def __call__(self, messages: list[BaseMessage]) -> str:
        role = _role(messages)
        prompt = "\n".join(str(m.content) for m in messages)
        self.calls.append((role, prompt))
        reply = self.replies.get(role, GARBAGE)
        return reply(prompt) if callable(reply) else reply

    def roles(self) -> list[str]:
        return [role for role, _ in self.calls]

    @property
    def model(self) -> FunctionChatModel:
        return FunctionChatModel(function=self)


def _answer_citing(n: int) -> Callable[[str], str]:
    return lambda prompt: (f"고혈압은 생활 습관 개선과 약물로 치료합니다 [{n}]. 존재하지 않는 문서 [99].\n"
                           "※ 의료진과 상의하세요.")


GOOD_JUDGE = json.dumps({"grounding_score": 0.9, "completeness_score": 0.8, "accuracy_score": 0.9,
                         "overall_score": 0.87, "missing_info": [], "improvement_suggestions": [],
                         "safety_concerns": []})
BAD_JUDGE = json.dumps({"grounding_score": 0.2, "completeness_score": 0.2, "accuracy_score": 0.3,
                        "overall_score": 0.23, "missing_info": ["medicines for high blood pressure"],
                        "improvement_suggestions": ["name the medicines"], "safety_concerns": []})


def test_model_intent_decides_k(make_agent: Any) -> None:
    brain = Brain(intent='{"intent": "complex", "reason": "여러 측면"}', judge=GOOD_JUDGE,
                  answer=_answer_citing(1), slots="{}")
    reply = make_agent(llm=brain.model).session(None, user_id="m1").send("How is high blood pressure treated?")
    assert reply.state["intent"] == "complex" and reply.state["dynamic_k"] == 15
    assert "intent" in brain.roles()


def test_garbage_intent_falls_back_to_the_rules(make_agent: Any) -> None:
    brain = Brain(intent=GARBAGE, judge=GOOD_JUDGE, answer=_answer_citing(1), slots="{}")
    reply = make_agent(llm=brain.model).session(None, user_id="m2").send("안녕하세요")
    assert reply.state["intent"] == "greeting" and reply.state["dynamic_k"] == 0
    assert brain.roles().count("intent") == 2  # the answer and one repair request


def test_active_retrieval_off_uses_the_fixed_k(make_agent: Any) -> None:
    agent = make_agent(feature_flags={"active_retrieval_enabled": False}, agent_config={"retrieval_k": 5})
    reply = agent.session(None, user_id="m3").send("How is high blood pressure treated?")
    assert reply.state["dynamic_k"] == 5


def test_model_slots_are_stored_in_the_profile(make_agent: Any) -> None:
    slots = {"demographics": {"age": 65, "sex": "male"}, "conditions": ["type 2 diabetes"],
             "medications": [{"name": "metformin", "dose": "500 mg", "frequency": "하루 2회"}],
             "vitals": {}, "labs": {"fasting_glucose": "180 mg/dL"}, "symptoms": [], "removals": []}
    brain = Brain(intent='{"intent": "moderate", "reason": "x"}', slots=json.dumps(slots), judge=GOOD_JUDGE,
                  answer=_answer_citing(1))
    reply = make_agent(llm=brain.model).session(None, user_id="m4").send(
        "65세 남성이고 당뇨가 있어요. 메트포르민 500mg 하루 두 번 먹어요. 공복혈당 180이에요.")
    profile = reply.state["profile"]
    assert "slots" in brain.roles()
    assert profile["demographics"]["age"] == 65 and profile["medications"][0]["name"] == "metformin"
    assert profile["labs"] == {"fasting_glucose": "180 mg/dL"}


def test_a_profile_copied_from_the_prompt_example_is_not_stored(make_agent: Any) -> None:
    """Seen with the local 1.5B model: asked about lice, it answered the slots prompt with the
    prompt's own example profile. None of it is in the message, so none of it is stored."""
    example = {"demographics": {"age": 65, "sex": "male"}, "conditions": ["type 2 diabetes"],
               "symptoms": ["dizziness"], "medications": [{"name": "metformin", "dose": "500 mg"}],
               "vitals": {"blood_pressure": "140/90 mmHg"}, "labs": {"fasting_glucose": "180 mg/dL"},
               "removals": [["medications", "metformin"]]}
    brain = Brain(intent='{"intent": "simple", "reason": "x"}', slots=json.dumps(example), judge=GOOD_JUDGE,
                  answer=_answer_citing(1))
    reply = make_agent(llm=brain.model).session(None, user_id="m7").send("What are body lice?")
    assert "slots" in brain.roles()
    profile = reply.state["profile"]
    assert not profile.get("conditions") and not profile.get("medications") and not profile.get("labs")
    assert not profile.get("vitals") and not (profile.get("demographics") or {}).get("age")
    assert "Profile" not in reply.text and "프로필" not in reply.text
    # ... while a value the message does say is kept, next to one the model made up
    made_up = {**example, "demographics": {"age": 42}, "medications": [{"name": "lisinopril", "dose": "10 mg"}]}
    brain = Brain(intent='{"intent": "simple", "reason": "x"}', slots=json.dumps(made_up), judge=GOOD_JUDGE,
                  answer=_answer_citing(1))
    profile = make_agent(llm=brain.model).session(None, user_id="m8").send(
        "I'm 42 and take lisinopril 10 mg. How is high blood pressure treated?").state["profile"]
    assert profile["demographics"]["age"] == 42 and profile["medications"][0]["name"] == "lisinopril"
    assert not profile.get("conditions") and not profile.get("labs") and not profile.get("vitals")


def test_garbage_slots_fall_back_to_the_offline_extractor(make_agent: Any) -> None:
    brain = Brain(intent='{"intent": "moderate", "reason": "x"}', slots=GARBAGE, judge=GOOD_JUDGE,
                  answer=_answer_citing(1))
    reply = make_agent(llm=brain.model).session(None, user_id="m5").send(
        "I'm 42 and take lisinopril 10 mg. How is high blood pressure treated?")
    assert brain.roles().count("slots") == 2 and reply.text.strip()
    assert reply.state["profile"]["medications"][0]["name"] == "lisinopril"  # the offline extractor's


def test_model_answer_keeps_only_real_citations(make_agent: Any) -> None:
    brain = Brain(intent='{"intent": "moderate", "reason": "x"}', slots="{}", judge=GOOD_JUDGE,
                  answer=_answer_citing(2))
    reply = make_agent(llm=brain.model).session(None, user_id="m6").send("How is high blood pressure treated?")
    assert "[2]" in reply.text and "[99]" not in reply.text
    citations = [a for a in reply.artifacts if a.kind == "citation"]
    assert [c.ref for c in citations] == ["[2]"]
    answer_prompt = next(p for role, p in brain.calls if role == "answer")
    assert "[근거]" in answer_prompt and "[2]" in answer_prompt  # the evidence is numbered as cited


def test_garbage_answer_is_still_an_answer(make_agent: Any) -> None:
    brain = Brain(intent='{"intent": "moderate", "reason": "x"}', slots="{}", judge=GOOD_JUDGE, answer="")
    reply = make_agent(llm=brain.model).session(None, user_id="m7").send("How is high blood pressure treated?")
    assert "From the documents" in reply.text  # an empty model answer: the extractive one is used


def test_judge_low_score_rewrites_and_retrieves_again(make_agent: Any) -> None:
    brain = Brain(intent='{"intent": "simple", "reason": "x"}', slots="{}", judge=BAD_JUDGE,
                  answer=_answer_citing(1), rewrite='{"query": "high blood pressure medicines diuretics"}')
    agent = make_agent(llm=brain.model, feature_flags={"max_refine_iterations": 2})
    reply = agent.session(None, user_id="m8").send("How is high blood pressure treated?")
    logs = reply.state["refine_iteration_logs"]
    assert logs[0]["decision"] == "retrieve_again" and logs[0]["overall"] == 0.2333  # the mean of its parts
    assert logs[0]["query"] == "high blood pressure medicines diuretics"
    assert "rewrite" in brain.roles()
    rewrite_prompt = next(p for role, p in brain.calls if role == "rewrite")
    assert "medicines for high blood pressure" in rewrite_prompt  # from missing_info
    assert logs[-1]["decision"] == "stop"
    assert re.search(r"max_refine_iterations|stopped improving|already seen", logs[-1]["reason"])
    assert {d["iteration"] for d in reply.state["retrieved_docs"]} >= {0}
    events = [e for e in reply.events if e.type == "decision" and e.kind == "refine"]
    assert [e.choice for e in events] == [entry["decision"] for entry in logs]


def test_judge_plateau_stops_early(make_agent: Any) -> None:
    scores = iter([0.30, 0.32, 0.9])

    def judge(_: str) -> str:
        s = next(scores)
        return json.dumps({"grounding_score": s, "completeness_score": s, "accuracy_score": s, "overall_score": s,
                           "missing_info": ["treatment options"], "improvement_suggestions": [],
                           "safety_concerns": []})

    rewrites = iter(['{"query": "hypertension treatment lifestyle"}', '{"query": "blood pressure medicines"}'])
    brain = Brain(intent='{"intent": "simple", "reason": "x"}', slots="{}", judge=judge,
                  answer=_answer_citing(1), rewrite=lambda _: next(rewrites))
    reply = make_agent(llm=brain.model, feature_flags={"max_refine_iterations": 3}).session(
        None, user_id="m9").send("How is high blood pressure treated?")
    logs = reply.state["refine_iteration_logs"]
    stops = [entry for entry in logs if entry["decision"] == "stop"]
    assert stops and ("stopped improving" in stops[0]["reason"] or "already seen" in stops[0]["reason"])
    assert len(logs) <= 3


def test_garbage_judge_and_rewrite_fall_back_to_the_offline_ones(make_agent: Any) -> None:
    brain = Brain(intent='{"intent": "simple", "reason": "x"}', slots="{}", judge=GARBAGE, rewrite=GARBAGE,
                  answer=_answer_citing(1))
    reply = make_agent(llm=brain.model).session(None, user_id="m10").send("How is high blood pressure treated?")
    logs = reply.state["refine_iteration_logs"]
    assert logs and all(entry["overall"] is not None for entry in logs)
    assert brain.roles().count("judge") >= 2  # the garbage answer and its repair request


def test_llm_mode_is_the_baseline(make_agent: Any) -> None:
    brain = Brain(baseline="고혈압은 혈압이 높은 상태입니다.")
    reply = make_agent(llm=brain.model, mode="llm").session(None, user_id="m11").send("고혈압이 뭐예요?")
    assert reply.text.startswith("고혈압은") and reply.state["retrieved_docs"] == []
    assert brain.roles() == ["baseline"]
    offline = make_agent(mode="llm").session(None, user_id="m12").send("고혈압이 뭐예요?")
    assert "모델이 필요합니다" in offline.text


def test_session_options_override_flags(make_agent: Any) -> None:
    agent = make_agent()
    session = agent.session(None, user_id="m13", feature_flags={"quality_check_enabled": False},
                            agent_config={"retrieval_mode": "bm25"})
    reply = session.send("How is high blood pressure treated?")
    assert reply.state["refine_iteration_logs"][0]["reason"] == "quality check disabled"
    assert all(d["dense_rank"] is None for d in reply.state["retrieved_docs"])


def test_agent_config_reaches_a_model_that_has_the_settings() -> None:
    from graphagents.agents.rag.nodes import configured

    class Tunable(FunctionChatModel):
        temperature: float = 1.0
        max_tokens: int | None = None

    model = Tunable(function=lambda messages: "x")
    tuned = configured(model, {"temperature": 0.2, "max_tokens": 300})
    assert (tuned.temperature, tuned.max_tokens) == (0.2, 300) and model.temperature == 1.0
    plain = FunctionChatModel(function=lambda messages: "x")
    assert configured(plain, {"temperature": 0.2}) is plain
