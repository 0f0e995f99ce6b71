experiment "hostile" {
  http_port  = 8080
  https_port = 8443
}
machines "local" {}
fixture "minimal" {
  seed = 1
}
scenario "p" {
  kind     = "page"
  visitors = [1]
  duration = "1s"
}
# The web ports opened to the world where firewalld runs.
profile "caddy" {
  vars = { allow_from = "[\"0.0.0.0/0\"]" } # <- refused
}
