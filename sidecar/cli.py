"""Command line: ``vtt-sidecar serve | world | content | schema | demo``."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from sidecar import __version__

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "docs" / "protocol.schema.json"


def _env_list(name: str) -> list[str]:
    value = os.environ.get(name, "")
    return [v.strip() for v in value.split(",") if v.strip()]


def build_config(args: argparse.Namespace) -> Any:
    """Defaults < config file < environment < command line."""
    from sidecar.app import Config, load_toml

    config = Config()
    config_path = args.config or os.environ.get("VTT_SIDECAR_CONFIG")
    if config_path:
        data = load_toml(Path(config_path))
        for key, value in data.items():
            if not hasattr(config, key):
                raise SystemExit(f"{config_path}: unknown setting {key!r}")
            if key == "db":
                value = Path(value)
            elif key == "content":
                value = [Path(v) for v in value]
            setattr(config, key, value)
    env = os.environ
    if env.get("VTT_SIDECAR_HOST"):
        config.host = env["VTT_SIDECAR_HOST"]
    if env.get("VTT_SIDECAR_PORT"):
        config.port = int(env["VTT_SIDECAR_PORT"])
    if env.get("VTT_SIDECAR_DB"):
        config.db = Path(env["VTT_SIDECAR_DB"])
    if env.get("VTT_SIDECAR_CONTENT"):
        config.content = [Path(p) for p in env["VTT_SIDECAR_CONTENT"].split(os.pathsep) if p]
    if env.get("VTT_SIDECAR_ORIGINS"):
        config.origins = _env_list("VTT_SIDECAR_ORIGINS")
    if env.get("VTT_SIDECAR_LOG_LEVEL"):
        config.log_level = env["VTT_SIDECAR_LOG_LEVEL"]
    if env.get("VTT_SIDECAR_LOG_FORMAT"):
        config.log_format = env["VTT_SIDECAR_LOG_FORMAT"]
    if getattr(args, "log_level", None):
        config.log_level = args.log_level
    if getattr(args, "log_format", None):
        config.log_format = args.log_format
    if getattr(args, "host", None):
        config.host = args.host
    if getattr(args, "port", None):
        config.port = args.port
    if getattr(args, "db", None):
        config.db = Path(args.db)
    if getattr(args, "content", None):
        config.content = [Path(p) for p in args.content]
    if getattr(args, "origin", None):
        config.origins = list(args.origin)
    if getattr(args, "public_url", None):
        config.public_url = args.public_url
    return config


def cmd_serve(args: argparse.Namespace) -> int:
    from aiohttp import web

    from sidecar import logs
    from sidecar.app import Sidecar
    from sidecar.content import ContentError

    config = build_config(args)
    try:
        logs.configure(config.log_level, config.log_format)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        sidecar = Sidecar(config)
    except ContentError as exc:
        print(f"content error: {exc}", file=sys.stderr)
        return 2
    if config.host not in ("127.0.0.1", "localhost", "::1"):
        logging.getLogger("sidecar").warning(
            "listening on %s: anyone who can reach this address can try to connect; "
            "use a TLS reverse proxy and an Origin allowlist (docs/security.md)",
            config.host,
        )
    base = f"http://{config.host}:{config.port}"
    print(f"VTT Rules Sidecar {__version__} on ws://{config.host}:{config.port}/ws", flush=True)
    print(f"  database: {config.db}", flush=True)
    print(f"  Foundry manifest URL: {base}/module/module.json", flush=True)
    worlds = sidecar.store.list_worlds()
    if not worlds:
        print("  no worlds yet: create one with  vtt-sidecar world add YOUR_WORLD_ID", flush=True)
    web.run_app(
        sidecar.make_app(),
        host=config.host,
        port=config.port,
        print=None,
        shutdown_timeout=10.0,
        access_log=None,
    )
    return 0


def _store(args: argparse.Namespace) -> Any:
    from sidecar.store import Store

    return Store(build_config(args).db)


def cmd_world(args: argparse.Namespace) -> int:
    from sidecar.store import StoreError

    store = _store(args)
    if args.world_cmd == "add":
        try:
            token = store.add_world(args.name, args.title)
        except StoreError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        if args.seed is not None:
            store.set_seed(args.name, args.seed)
        print(f"world {args.name!r} created. Its token (shown only now, keep it secret):")
        print(token)
        print("Paste it into the module settings: Configure Settings > VTT Rules Sidecar.")
        return 0
    if args.world_cmd == "rotate":
        try:
            token = store.rotate_token(args.name)
        except StoreError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(f"new token for {args.name!r} (the old one no longer works):")
        print(token)
        return 0
    if args.world_cmd == "remove":
        if not store.remove_world(args.name):
            print(f"error: no world {args.name!r}", file=sys.stderr)
            return 1
        print(f"world {args.name!r} removed with its state and history")
        return 0
    worlds = store.list_worlds()
    if not worlds:
        print("no worlds (create one with: vtt-sidecar world add WORLD_ID)")
    for row in worlds:
        print(f"{row.id}\t{row.name}\tlast seq {row.last_seq}\tacked {row.acked_seq}")
    return 0


def cmd_content(args: argparse.Namespace) -> int:
    from sidecar.content import BUNDLED_CONTENT, check
    from sidecar.rules import registry  # noqa: F401  (registers content kinds and effects)

    roots = [BUNDLED_CONTENT, *[Path(p) for p in (args.content or [])]]
    problems = check(roots)
    errors = [msg for level, msg in problems if level == "error"]
    for level, msg in problems:
        print(f"{level}: {msg}")
    if errors:
        print(f"content check failed: {len(errors)} error(s)")
        return 1
    print(f"content check passed ({len(problems)} warning(s))")
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from sidecar.protocol import json_schema

    text = json.dumps(json_schema(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    if args.check:
        current = SCHEMA_PATH.read_text("utf-8") if SCHEMA_PATH.exists() else ""
        if current != text:
            print(f"{SCHEMA_PATH} is stale: run vtt-sidecar schema", file=sys.stderr)
            return 1
        print("schema is up to date")
        return 0
    out = Path(args.output) if args.output else SCHEMA_PATH
    out.write_text(text, "utf-8")
    print(f"wrote {out}")
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from sidecar.audit import audit, format_entries, parse_time

    store = _store(args)
    if store.get_world(args.world) is None:
        print(f"error: no world {args.world!r}", file=sys.stderr)
        return 1
    try:
        since = parse_time(args.since) if args.since else None
        until = parse_time(args.until) if args.until else None
    except ValueError as exc:
        print(f"error: {exc} (use ISO 8601, e.g. 2026-11-29T18:00)", file=sys.stderr)
        return 2
    entries = audit(
        store,
        args.world,
        since=since,
        until=until,
        creature=args.creature,
        trap=args.trap,
        chase=args.chase,
    )
    if args.json:
        print(json.dumps([e.as_json() for e in entries], ensure_ascii=False, indent=1))
    else:
        print(format_entries(entries))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from sidecar.audit import replay
    from sidecar.cards import CardRenderer
    from sidecar.content import BUNDLED_CONTENT, ContentStore

    config = build_config(args)
    store = _store(args)
    if store.get_world(args.world) is None:
        print(f"error: no world {args.world!r}", file=sys.stderr)
        return 1
    content = ContentStore.load([BUNDLED_CONTENT, *config.content])
    report = replay(store, args.world, content, CardRenderer(content.catalog))
    print(report.summary())
    return 0 if report.ok else 1


def cmd_demo(args: argparse.Namespace) -> int:
    from sidecar.demo import run_demo

    return run_demo(language=args.language, seed=args.seed, only=args.only)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="vtt-sidecar", description="VTT Rules Sidecar")
    p.add_argument("--version", action="version", version=__version__)
    p.add_argument("--config", help="TOML config file (a [sidecar] table)")
    p.add_argument("--db", help="SQLite file (default: per-user data dir)")
    sub = p.add_subparsers(dest="cmd", required=True)

    serve = sub.add_parser("serve", help="run the sidecar")
    serve.add_argument("--host", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default 8765)")
    serve.add_argument("--content", action="append", help="extra content directory")
    serve.add_argument("--origin", action="append", help="allowed Origin (repeatable)")
    serve.add_argument("--public-url", help="URL the module manifest should point at")
    serve.add_argument("--db", default=argparse.SUPPRESS, help="SQLite file")
    serve.add_argument("--log-level", help="DEBUG, INFO (default: one line per event), WARNING")
    serve.add_argument(
        "--log-format", choices=["text", "json"], help="text (default) or JSON lines"
    )
    serve.set_defaults(fn=cmd_serve)

    world = sub.add_parser("world", help="manage worlds and their tokens")
    world.add_argument("--db", default=argparse.SUPPRESS, help="SQLite file")
    wsub = world.add_subparsers(dest="world_cmd", required=True)
    add = wsub.add_parser("add", help="create a world and print its token once")
    add.add_argument("name", help="the Foundry world id (game.world.id)")
    add.add_argument("--title", help="display name")
    add.add_argument("--seed", type=int, help="dice seed (default: random)")
    wsub.add_parser("list", help="list worlds")
    rm = wsub.add_parser("remove", help="delete a world with its state")
    rm.add_argument("name")
    rot = wsub.add_parser("rotate", help="issue a new token")
    rot.add_argument("name")
    world.set_defaults(fn=cmd_world)

    content = sub.add_parser("content", help="content tools")
    csub = content.add_subparsers(dest="content_cmd", required=True)
    chk = csub.add_parser("check", help="validate bundled and extra content")
    chk.add_argument("--content", action="append", help="extra content directory")
    content.set_defaults(fn=cmd_content)

    schema = sub.add_parser("schema", help="regenerate docs/protocol.schema.json")
    schema.add_argument("--check", action="store_true", help="fail if the file is stale")
    schema.add_argument("--output", help="write elsewhere")
    schema.set_defaults(fn=cmd_schema)

    aud = sub.add_parser("audit", help="list a world's events with their rolls and results")
    aud.add_argument("world")
    aud.add_argument("--since", help="ISO 8601 time (UTC unless it names a zone)")
    aud.add_argument("--until", help="ISO 8601 time (UTC unless it names a zone)")
    aud.add_argument("--creature", help="only events touching this actor or token id")
    aud.add_argument("--trap", help="only events touching this trap region id")
    aud.add_argument("--chase", help="only events touching this chase id")
    aud.add_argument("--json", action="store_true", help="JSON instead of text")
    aud.set_defaults(fn=cmd_audit)

    rep = sub.add_parser("replay", help="re-run a world's events from its seed and compare")
    rep.add_argument("world")
    rep.add_argument("--content", action="append", help="extra content directory")
    rep.set_defaults(fn=cmd_replay)

    demo = sub.add_parser("demo", help="play a scripted session against a real server")
    demo.add_argument("--language", default="en", choices=["en", "ru", "zh-CN"])
    demo.add_argument("--seed", type=int, default=7)
    demo.add_argument("--only", action="append", help="run only these parts")
    demo.set_defaults(fn=cmd_demo)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    result: int = args.fn(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
