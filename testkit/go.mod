module github.com/queen-mq/queen-go/testkit

go 1.26
