"""Serve the Foundry module from the sidecar: a manifest URL Foundry can install from."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

if TYPE_CHECKING:
    from sidecar.app import Sidecar

MODULE_DIR = Path(__file__).resolve().parent.parent / "vtt_module"
PACKAGED = ("module.json", "scripts", "lang", "styles", "templates")


def build_zip(module_dir: Path = MODULE_DIR) -> bytes:
    """The installable zip: the module's runtime files under a ``vtt-sidecar/`` folder."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in PACKAGED:
            path = module_dir / name
            if path.is_file():
                zf.write(path, f"vtt-sidecar/{name}")
            elif path.is_dir():
                for file in sorted(path.rglob("*")):
                    if file.is_file():
                        zf.write(file, f"vtt-sidecar/{file.relative_to(module_dir)}")
    return buffer.getvalue()


def manifest(base_url: str, module_dir: Path = MODULE_DIR) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((module_dir / "module.json").read_text("utf-8"))
    data["manifest"] = f"{base_url}/module/module.json"
    data["download"] = f"{base_url}/module/vtt-sidecar.zip"
    return data


def add_routes(app: web.Application, sidecar: Sidecar) -> None:
    def base_url(request: web.Request) -> str:
        if sidecar.config.public_url:
            return sidecar.config.public_url.rstrip("/")
        return f"{request.scheme}://{request.host}"

    async def get_manifest(request: web.Request) -> web.Response:
        if not (MODULE_DIR / "module.json").is_file():
            raise web.HTTPNotFound(text="module files are not installed with this sidecar")
        return web.json_response(manifest(base_url(request)))

    async def get_zip(request: web.Request) -> web.Response:
        if not (MODULE_DIR / "module.json").is_file():
            raise web.HTTPNotFound(text="module files are not installed with this sidecar")
        return web.Response(
            body=build_zip(),
            content_type="application/zip",
            headers={"Content-Disposition": 'attachment; filename="vtt-sidecar.zip"'},
        )

    app.router.add_get("/module/module.json", get_manifest)
    app.router.add_get("/module/vtt-sidecar.zip", get_zip)
