# The two commands of the README. Both install what is missing first (scripts/setup.sh) and are cheap to re-run.
.PHONY: serve test screenshot

serve: ## build the page and serve it on http://127.0.0.1:8080/
	@scripts/serve.sh

test: ## every check and test, as CI runs it
	@scripts/setup.sh test
	@scripts/test.sh

screenshot: ## refresh docs/screenshot.png from the real page in headless Chromium
	@scripts/setup.sh test
	@scripts/screenshot.sh
