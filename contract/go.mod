module github.com/queen-mq/queen-go/contract

go 1.26
