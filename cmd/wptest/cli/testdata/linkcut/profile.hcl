# linkcut: up's failed-apply test profile (TestBareHostUpLinkCut). It
# installs nothing: a file, a command that holds until the test has cut
# the host's link, then ops that must never run.

profile {
  description = "Test profile: a file, a command the test cuts the link under, three ops after it"
  platforms   = ["debian-12", "debian-13"]
}

platform "debian-12" { package_manager = "apt" }
platform "debian-13" { package_manager = "apt" }

directory "root" {
  path = "/srv/wptest-linkcut"
  mode = "0755"
}

file "before" {
  path    = "/srv/wptest-linkcut/before"
  content = "written before the cut\n"
}

# Holds (on the host) far longer than the client waits for a dead link.
command "hold" {
  run     = "echo holding; sleep 600; touch /srv/wptest-linkcut/held"
  creates = "/srv/wptest-linkcut/held"
}

file "after1" {
  path    = "/srv/wptest-linkcut/after1"
  content = "never\n"
}

file "after2" {
  path    = "/srv/wptest-linkcut/after2"
  content = "never\n"
}

command "after3" {
  run     = "touch /srv/wptest-linkcut/after3"
  creates = "/srv/wptest-linkcut/after3"
}
