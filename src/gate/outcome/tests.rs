//! The rules around the rulings: how they combine, and what the recursion guard rules.

use super::*;
use crate::gate::classify::Class;
use crate::gate::decide::fixtures::gated;

fn ruling(decision: Decision, reason: &str) -> Ruling {
    Ruling {
        decision,
        reason: reason.into(),
        ..recursion_guard_ruling(&gated(Class::Push, "git push"))
    }
}

#[test]
fn a_deny_wins_over_an_ask_and_an_ask_over_silence() {
    use Decision::*;
    let rulings = [
        ruling(Ask, "ask 1"),
        ruling(Deny, "deny 1"),
        ruling(Deny, "deny 1"),
        ruling(Silent, ""),
        ruling(Deny, "deny 2"),
    ];
    assert_eq!(combine(&rulings), (Deny, "deny 1\ndeny 2".to_owned()));
    assert_eq!(
        combine(&rulings[..1]),
        (Ask, "ask 1".to_owned()),
        "an ask alone"
    );
    assert_eq!(combine(&rulings[3..4]), (Silent, String::new()));
    assert_eq!(combine(&[]), (Silent, String::new()));
    assert_eq!(worst(&rulings[..1]), Ask);
}

#[test]
fn the_recursion_guard_asks_and_says_so_in_its_facts() {
    let r = recursion_guard_ruling(&gated(Class::Push, " git push "));
    assert_eq!(
        (r.decision, r.decided_by, r.class),
        (Decision::Ask, DecidedBy::Policy, Class::Push)
    );
    assert!(
        r.reason
            .starts_with("hookjudge: `git push` does the thing; hookjudge's recursion guard"),
        "{}",
        r.reason
    );
    // As the gate has always logged it.
    assert_eq!(
        serde_json::to_string(&r.facts).unwrap(),
        r#"{"recursion_guard":true}"#
    );
}

#[test]
fn an_answer_tells_the_agent_its_decision_and_reason() {
    let answer = |decision| Answer {
        decision,
        reason: "why".into(),
        rulings: Vec::new(),
        guarded: false,
    };
    assert_eq!(answer(Decision::Silent).outcome(), GateOutcome::Silent);
    assert_eq!(
        answer(Decision::Deny).outcome(),
        GateOutcome::Deny("why".into())
    );
    assert_eq!(
        answer(Decision::Ask).outcome(),
        GateOutcome::Ask("why".into())
    );
}

#[test]
fn only_an_agent_whose_refusal_ends_the_run_is_refused_in_place() {
    use crate::agent::{Agent, HookInput};
    use crate::gate::outcome::refuse_in_place;
    let call = |input: serde_json::Value| {
        HookInput::parse(
            serde_json::json!({"tool_name": "run_commands", "tool_input": input})
                .to_string()
                .as_bytes(),
        )
        .unwrap()
    };
    let cli = call(serde_json::json!({"commands": ["git push"]}));
    let told = |outcome: GateOutcome| match outcome {
        GateOutcome::RefusedInPlace { reason, .. } => reason,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        told(refuse_in_place(
            GateOutcome::Deny("no".into()),
            Agent::Cline,
            &cli
        )),
        "no"
    );
    let asked = told(refuse_in_place(
        GateOutcome::Ask("why".into()),
        Agent::Cline,
        &cli,
    ));
    assert_eq!(asked, format!("why {}", crate::agent::ASK_THE_USER));
    for kept in [GateOutcome::Silent, GateOutcome::Deny("no".into())] {
        assert_eq!(
            refuse_in_place(kept.clone(), Agent::Claude, &cli),
            kept,
            "others answer as before"
        );
    }
    let extension = call(serde_json::json!({"command": "git push"}));
    assert_eq!(
        refuse_in_place(GateOutcome::Deny("no".into()), Agent::Cline, &extension),
        GateOutcome::Deny("no".into()),
        "the extension reads no rewritten input: it is cancelled"
    );
    assert_eq!(
        refuse_in_place(GateOutcome::Silent, Agent::Cline, &cli),
        GateOutcome::Silent
    );
}
