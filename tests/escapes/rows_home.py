"""Row 104 of the escape corpus: a credential store no list names.

porta's credential list closes some 80 places in the home; the stores of
the next tool are not on it.  Under `--read-policy open` (the default until
the test suites name their files) the command reads
`~/.databrickscfg`, `~/.kaggle/kaggle.json`, OpenStack's `clouds.yaml`,
Ollama's private key, a `~/.env`, shell and database histories, VS Code's
global storage, JetBrains' `github.xml` and the Bitwarden CLI's data: the
list will never be complete.  `--read-policy home` closes the home by rule:
in it only the mounts, the working directory's project and the places
docs/defaults.md lists are visible, so a store nobody listed is closed.

The command runs as an agent does: from its project (a git repository in
the home), with the project mounted.  Evidence: a store's secret on stdout.
The peers run with their default reads (each has no closed home).
"""

import os
import uuid

from corpus import *  # noqa: F401,F403  (the runner's vocabulary)
from corpus import BROKEN, MARKER, Check, Policy, judge, row, sh
from rows_files import plant

# Stores found in minutes that no closed list named.
UNLISTED = [
    ".databrickscfg",
    ".kaggle/kaggle.json",
    ".config/openstack/clouds.yaml",
    ".ollama/id_ed25519",
    ".env",
    ".bash_history",
    ".psql_history",
    ".config/Code/User/globalStorage/storage.json",
    ".config/JetBrains/IntelliJIdea2024.1/options/github.xml",
    ".config/Bitwarden CLI/data.json",
]


def unlisted_home(base, token):
    home = os.path.join(base, "home")
    plant(home, {rel: f"{MARKER}/{rel} {token}\n" for rel in UNLISTED})
    proj = os.path.join(home, "code", "proj")
    plant(proj, {"README": "the project\n"}, 0o644)
    os.makedirs(os.path.join(proj, ".git"))
    return home, proj


SCRIPT = 'cat README >/dev/null && echo project-read; for f; do cat "$HOME/$f"; done'


@row(104, "a credential store no list names, read from the home",
     "--read-policy home -v PROJECT, run from the project (HOME=planted home)")
def row104(ctx):
    token = uuid.uuid4().hex[:10]
    home, proj = unlisted_home(ctx.fresh("r104-control"), token)
    ctl = ctx.control(sh(SCRIPT, *UNLISTED), env=ctx.env(HOME=home), cwd=proj)
    home, proj = unlisted_home(ctx.fresh("r104-sandbox"), token)
    sbx = ctx.sandboxed(Policy(mounts=[(proj, False)], read_policy="home"), sh(SCRIPT, *UNLISTED),
                        env=ctx.env(HOME=home), cwd=proj)
    checks = []
    for rel in UNLISTED:
        m = f"{MARKER}/{rel} "
        checks.append(judge(f"~/{rel}", m in ctl.stdout, m in sbx.stdout, sbx,
                            f"stdout carried ~/{rel}'s secret" if m in sbx.stdout else "not read",
                            expect=[]))
    # the project is the working directory's repository: one inside a
    # listed credential directory stays closed (the list holds inside
    # whatever the closed home shows)
    aws = os.path.join(home, ".aws")
    plant(aws, {"credentials": f"{MARKER}/aws {token}\n"})
    os.makedirs(os.path.join(aws, ".git"))
    ctl2 = ctx.control(sh('cat "$HOME/.aws/credentials"'), env=ctx.env(HOME=home), cwd=aws)
    sbx2 = ctx.sandboxed(Policy(read_policy="home"), sh('cat "$HOME/.aws/credentials"'),
                         env=ctx.env(HOME=home), cwd=aws)
    m = f"{MARKER}/aws "
    checks.append(judge("run from ~/.aws, a repository: the project is a credential path",
                        m in ctl2.stdout, m in sbx2.stdout, sbx2,
                        "stdout carried ~/.aws/credentials" if m in sbx2.stdout else "not read",
                        refusal_holds="not visible in the sandbox"))
    # a sandbox that refuses the project too holds nothing worth having
    if sbx.started and "project-read" not in sbx.stdout:
        checks.append(Check("the project is read", BROKEN, "-",
                            "the command could not read its own project"))
    return checks
