module github.com/shortlink/shortlink/verifiers/go/shortlinkwebhooks

go 1.19
