#!/usr/bin/env python3
"""Records the five seed scenarios' transcripts (Examples/Contracts/*.json) from real sessions.

For each scenario: an extension-host on a scratch data directory (set up with the scenario's
provider states), `channelbridge record` in front of it, and the scenario's clients (the CLI)
talking through the recorder. Then the transcript is made portable: values that hold the scratch
directory (absolute paths the host hands out) become regex matchers with an example, without
their bytes, and the provider states are added as `given`. Run from the package root after
`swift build`:  python3 Examples/Contracts/record.py
"""
import json, os, re, shutil, signal, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "Examples", "Contracts")
BIN = os.path.join(ROOT, ".build", "debug")
CB, HOST = os.path.join(BIN, "channelbridge"), os.path.join(BIN, "extension-host")
EXT, PREFS, CHANGES = "channelbridge/extension", "shared_preference_app_group", "shared_preference_app_group/changes"

SCENARIOS = [
    {"name": "share-text-url-file",
     "about": "Seed 000/002/003: a share extension's Flutter UI reads what was shared (a text, a URL and a file, copied into "
              "the app group's container), finds the container, hands the share to the containing app under ShareKey, and exits.",
     "items": [{"title": "Shared from Safari", "attachments": [{"text": "Hello from the share sheet"},
                                                              {"url": "https://example.com/article?id=42"},
                                                              {"file": "files/photo.png"}]}],
     "sessions": [[f"{EXT} getInputItems", f'{EXT} getAppGroupContainer {{"appGroup": "group.local"}}',
                   f'{PREFS} setString {{"key": "ShareKey", "value": "[{{\\"type\\":\\"text\\",\\"value\\":\\"Hello from the share sheet\\"}}]"}}',
                   f'{PREFS} getString {{"key": "ShareKey"}}', f"{EXT} exit"]]},
    {"name": "action-extension-observed",
     "about": "Seed 001/004: an action extension saves the shared image's bytes to the app group while the containing app "
              "observes the group's changes (the observer's session is listed first: its listen came before the write, and its "
              "cancel before the extension's exit); then exit.",
     "items": [{"attachments": [{"file": "files/photo.png"}]}],
     "observer": ["listen", CHANGES, '{"keys": ["latestImage"]}', "--count", "1"],
     "sessions": [[f"{EXT} getInputItems", f'{PREFS} setBytes {{"key": "latestImage", "value": {{"uint8list": "89504e470d0a1a0a"}}}}',
                   f"{EXT} exit"]]},
    {"name": "list-import-at-launch",
     "about": "Seed 001: the containing app, at launch, takes what extensions appended to the import queue (one atomic "
              "read-and-remove), finds it gone afterwards, and appends to its own history.",
     "preferences": [("importQueue", [{"map": [["text", "first"]]}, {"map": [["url", "https://example.com/b"]]}])],
     "sessions": [[f'{PREFS} take {{"key": "importQueue"}}', f'{PREFS} get {{"key": "importQueue"}}',
                   f'{PREFS} appendToList {{"key": "history", "values": ["first", "https://example.com/b"]}}',
                   f'{PREFS} getAll']]},
    {"name": "open-url",
     "about": "Seed 002: the extension asks the host to open the containing app's URL scheme (the host is started with the "
              "default --open-url deny, so the answer is false), is refused a call without 'url', and exits.",
     "sessions": [[f'{EXT} openURL {{"url": "myapp://import?from=share"}}', f'{EXT} openURL {{}}', f"{EXT} exit"]]},
    {"name": "no-ui-action-cancel",
     "about": "Seed 004: a no-UI action reads its input, finds nothing it can use, and cancels the request with a code of its own.",
     "items": [{"attachments": [{"text": "plain words, no image"}]}],
     "sessions": [[f"{EXT} getInputItems", f"{EXT} selfDestruct",
                   f'{EXT} cancel {{"code": "NO_IMAGE", "message": "Nothing to process", "details": null}}']]},
]


def tvn_json(text):
    return json.loads(text)


def run():
    for scenario in SCENARIOS:
        scratch = tempfile.mkdtemp(prefix="cb-contract-")
        os.chmod(scratch, 0o700)
        try:
            record_one(scenario, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


def record_one(scenario, scratch):
    data, host_sock, rec_sock = scratch + "/data", scratch + "/h.sock", scratch + "/r.sock"
    args = [HOST, "--socket", host_sock, "--data-dir", data]
    if "items" in scenario:
        items = json.loads(json.dumps(scenario["items"]))
        for item in items:
            for attachment in item["attachments"]:
                if "file" in attachment:
                    attachment["file"] = os.path.join(HERE, attachment["file"])
        with open(scratch + "/items.json", "w") as f:
            json.dump({"items": items}, f)
        args += ["--items", scratch + "/items.json"]
    for key, value in scenario.get("preferences", []):
        for element in value:
            subprocess.run([CB, "prefs", "append", key, json.dumps(element), "--type", "json", "--data-dir", data], check=True)
    host = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert host.stdout.readline().startswith("ready ")
    out = scratch + "/t.json"
    rec = subprocess.Popen([CB, "record", "--listen", rec_sock, "--socket", host_sock, "--transcript", out],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert rec.stdout.readline().startswith("ready ")
    observer = None
    if "observer" in scenario:
        observer = subprocess.Popen([CB] + scenario["observer"] + ["--socket", rec_sock], stdout=subprocess.PIPE, text=True)
        time.sleep(0.5)   # the observer's listen is answered before the extension writes
    for lines in scenario["sessions"]:
        subprocess.run([CB, "session", "--socket", rec_sock], input="\n".join(lines) + "\n", text=True, capture_output=True)
    if observer:
        observer.wait(timeout=30)
    rec.send_signal(signal.SIGTERM)
    rec.wait(timeout=30)
    host.send_signal(signal.SIGTERM)
    host.wait(timeout=30)
    with open(out) as f:
        document = json.load(f)
    write(scenario, document, data)


def portable(value, data):
    """Strings holding the scratch data directory become regex matchers; returns (value, changed)."""
    if isinstance(value, str) and data in value:
        suffix = value[len(data):]
        return {"$regex": ".*" + re.escape(suffix), "example": "/data" + suffix}, True
    if isinstance(value, list):
        out, changed = [], False
        for element in value:
            new, c = portable(element, data)
            out.append(new)
            changed = changed or c
        return out, changed
    if isinstance(value, dict):
        out, changed = {}, False
        for key, element in value.items():
            new, c = portable(element, data)
            out[key] = new
            changed = changed or c
        return out, changed
    return value, False


def write(scenario, document, data):
    interactions = []
    for interaction in document["interactions"]:
        if interaction["channel"] == "channelbridge/reflection":
            continue   # the CLI's own lookup after a not-implemented reply, not the scenario's
        new, changed = portable(interaction, data)
        if changed:
            new.pop("replyHex", None)
        interactions.append(new)
    # The observer's stream came first in time; its interaction completes last (when it cancels).
    interactions.sort(key=lambda i: 0 if i["channel"] == CHANGES and "listen" in i else 1)
    listens = [i for i in interactions if i["channel"] == CHANGES and "listen" in i]
    if listens and not any(i["channel"] == CHANGES and "cancel" in i for i in interactions):
        # The observer cancels once it has its event; that cancel can reach the host after the
        # extension's exit (and is then not recorded). It goes before the exit, where a verifier
        # checks the stream's events: exit ends the host's streams.
        cancel = {"channel": CHANGES, "cancel": listens[0]["listen"], "reply": {"success": None}}
        exits = [n for n, i in enumerate(interactions) if i.get("call", {}).get("method") == "exit"]
        interactions.insert(exits[0] if exits else len(interactions), cancel)
    channels = {name: kind for name, kind in document["channels"].items() if name != "channelbridge/reflection"}
    given = {}
    if "items" in scenario:
        given["inputItems"] = scenario["items"]
    if "preferences" in scenario:
        given["preferences"] = [{"appGroup": "group.local", "key": key, "value": value} for key, value in scenario["preferences"]]
    head = {"transcript": 1, "about": scenario["about"], "channels": channels}
    if given:
        head["given"] = given
    text = json.dumps(head, ensure_ascii=False, separators=(",", ":"))[:-1]
    text += ',\n "interactions": [\n  ' + ",\n  ".join(json.dumps(i, ensure_ascii=False, separators=(",", ":")) for i in interactions)
    text += "\n ]\n}\n"
    with open(os.path.join(HERE, scenario["name"] + ".json"), "w") as f:
        f.write(text)
    print(scenario["name"] + ".json:", len(interactions), "interactions")


if __name__ == "__main__":
    run()
