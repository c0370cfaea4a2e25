# Two commands do all the set-up on a fresh Debian machine:
#   make serve   installs what is missing and starts the agent on port 9147
#   make test    installs what is missing (with the test extras) and runs the tests
VENV ?= .venv
PORT ?= 9147
NAME ?= ggp-agent
PYTEST_ARGS ?=
# Extra arguments for `docker build`, e.g. the CA bundle of a proxy that re-signs TLS:
#   make docker DOCKER_BUILD_ARGS='--secret id=ca-certificates,src=/etc/ssl/certs/ca-certificates.crt'
DOCKER ?= docker
DOCKER_BUILD_ARGS ?=
IMAGE ?= ggp-agent

.PHONY: serve test install install-test docker clean

install:
	docker/install.sh $(VENV)

install-test:
	docker/install.sh $(VENV) test

# warmup first: compiles the numba kernels on a fresh checkout (a minute or two,
# once; about two seconds afterwards), so the first START finds them ready.
serve: install
	$(VENV)/bin/ggp-agent warmup
	$(VENV)/bin/ggp-agent serve --host 0.0.0.0 --port $(PORT) --name $(NAME)

test: install-test
	$(VENV)/bin/python -m pytest $(PYTEST_ARGS)

docker:
	DOCKER_BUILDKIT=1 $(DOCKER) build $(DOCKER_BUILD_ARGS) -f docker/Dockerfile -t $(IMAGE) .

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
