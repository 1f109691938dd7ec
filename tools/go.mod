module github.com/queen-mq/queen-go/tools

go 1.26
