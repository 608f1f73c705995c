"""Rows 83-84 of the escape corpus: credential stores beyond the reference
list, and a -v that names one credential path.

Rows 48-50 read what porta's own list (policy/preset.c) names; row 83 keeps
its list HERE, written out, so that a store dropped from porta's list makes
the row fail instead of shrinking it.  Evidence: the planted secret's
marker on the probe's stdout, one check per path.
"""


import os

from corpus import *  # noqa: F401,F403  (the runner's vocabulary)
from corpus import MARKER, Policy, judge, row, sh
from rows_files import MOVE_AND_READ, plant

# Credential stores of tools the reference list did not name: coding agents'
# logins, forges, registries, build tools, cloud and infrastructure CLIs,
# model hubs, secrets tooling, the X11 cookie.  Files, as each tool writes
# them (porta may close a whole directory above one: that holds too).
STORES_83 = [
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".gemini/oauth_creds.json",
    ".config/github-copilot/hosts.json",
    ".config/github-copilot/apps.json",
    ".config/git/credentials",
    ".config/containers/auth.json",
    ".config/glab-cli/config.yml",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    ".terraformrc",
    ".cache/huggingface/token",
    ".huggingface/token",
    ".pulumi/credentials.json",
    ".config/sops/age/keys.txt",
    ".Xauthority",
    ".config/rclone/rclone.conf",
    ".s3cfg",
    ".boto",
    ".config/composer/auth.json",
    ".composer/auth.json",
    ".nuget/NuGet/NuGet.Config",
    ".ivy2/.credentials",
    ".sbt/.credentials",
    ".config/doctl/config.yaml",
    ".fly/config.yml",
    ".config/hcloud/cli.toml",
    ".wrangler/config/default.toml",
    ".config/stripe/config.toml",
    ".config/configstore/firebase-tools.json",
]

READ_ALL = 'for f; do cat "$HOME/$f"; done; '


def secret(rel: str) -> str:
    return f"{MARKER}/{rel} token\n"


def stores_home(base: str) -> str:
    home = os.path.join(base, "home")
    plant(home, {rel: secret(rel) for rel in STORES_83})
    return home


@row(83, "credential stores beyond the reference list unreadable",
     "(none; HOME=planted home), and -v HOME (moved, linked, copied)")
def row83(ctx):
    checks = []
    for label, policy_of, script, suffix in (
            ("r83", lambda home: Policy(), READ_ALL, ""),
            ("r83-home", lambda home: Policy(mounts=[(home, False)]), READ_ALL + MOVE_AND_READ,
             " (-v HOME: read, linked, moved, copied)")):
        home = stores_home(ctx.fresh(label + "-control"))
        ctl = ctx.control(sh(script, *STORES_83), env=ctx.env(HOME=home))
        home = stores_home(ctx.fresh(label + "-sandbox"))
        sbx = ctx.sandboxed(policy_of(home), sh(script, *STORES_83), env=ctx.env(HOME=home))
        for rel in STORES_83:
            m = secret(rel).strip()
            checks.append(judge(f"~/{rel}{suffix}", m in ctl.stdout, m in sbx.stdout, sbx,
                                f"stdout carried ~/{rel}'s secret" if m in sbx.stdout else "not read"))
    return checks


# --------------------------------------------------------------------------
# Row 84: -v of one credential path

HOME_84 = [".config/gh/hosts.yml", ".config/gh/other.yml", ".npmrc", ".netrc", ".git-credentials",
           ".pypirc", ".ssh/id_ed25519", ".ssh/config"]

# (name, the mounts under the planted home, what it names (expected readable:
# evidence only), the paths that must stay closed, the script's extra part)
VARIANTS_84 = [
    ("-v ~/.config/gh/hosts.yml:ro", [(".config/gh/hosts.yml", True)], ".config/gh/hosts.yml",
     [".config/gh/other.yml"], ""),
    ("-v ~/.npmrc:ro", [(".npmrc", True)], ".npmrc", [".netrc", ".git-credentials", ".pypirc"], ""),
    ("-v HOME (writable)", [("", False)], None, [".ssh/id_ed25519"], MOVE_AND_READ),
    ("-v ~/.ssh/config:ro", [(".ssh/config", True)], ".ssh/config", [".ssh/id_ed25519"], ""),
]


@row(84, "a -v naming one credential path opens that path only",
     "-v ~/.config/gh/hosts.yml:ro, -v ~/.npmrc:ro, -v HOME, -v ~/.ssh/config:ro (HOME=planted home)")
def row84(ctx):
    checks = []
    for name, mounts, named, closed, extra in VARIANTS_84:
        runs = {}
        for mode in ("control", "sandbox"):
            home = os.path.join(ctx.fresh(f"r84-{mode}"), "home")
            plant(home, {rel: secret(rel) for rel in HOME_84})
            argv = sh(READ_ALL + extra, *([named] if named else []) + closed)
            env = ctx.env(HOME=home)
            if mode == "control":
                runs[mode] = ctx.control(argv, env=env)
            else:
                pol = Policy(mounts=[(os.path.join(home, rel) if rel else home, ro) for rel, ro in mounts])
                runs[mode] = ctx.sandboxed(pol, argv, env=env)
        ctl, sbx = runs["control"], runs["sandbox"]
        # What the -v names is the user's choice: readable is expected, and
        # only said (porta once ignored such a -v silently).
        opened = "" if not named else (
            f"; the named ~/{named} was " + ("readable, as asked" if secret(named).strip() in sbx.stdout
                                             else "NOT readable (the -v was not honoured)"))
        for rel in closed:
            m = secret(rel).strip()
            checks.append(judge(f"{name}: ~/{rel} stays closed", m in ctl.stdout, m in sbx.stdout, sbx,
                                (f"stdout carried ~/{rel}'s secret" if m in sbx.stdout else "not read")
                                + opened))
    return checks
