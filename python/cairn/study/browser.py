"""Open a report in headless Chromium and say what a reader would see go wrong: console
errors and images that did not load. Used by the tests; needs Debian's chromium and
chromium-driver (scripts/bootstrap installs them)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


@dataclass(frozen=True)
class PageCheck:
    title: str
    images: int
    broken_images: list[str]
    console_errors: list[str]


def check_page(html: Path) -> PageCheck:
    chromium = shutil.which("chromium")
    driver_bin = shutil.which("chromedriver")
    if chromium is None or driver_bin is None:
        raise FileNotFoundError("chromium and chromedriver are needed (scripts/bootstrap installs them)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_bin), options=opts)
    try:
        driver.get(html.resolve().as_uri())
        images = driver.execute_script("return document.images.length")
        broken = driver.execute_script(
            "return Array.from(document.images)"
            ".filter(i => !i.complete || i.naturalWidth === 0).map(i => i.alt || i.src.slice(0, 60))")
        log = driver.get_log("browser")  # type: ignore[no-untyped-call]
        errors = [e["message"] for e in log if e.get("level") == "SEVERE"]
        return PageCheck(driver.title, int(images), list(broken), errors)
    finally:
        driver.quit()
