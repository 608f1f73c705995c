/*
 * Row 69: the host's System V IPC objects and POSIX message queues.
 *
 * usage: proc_ipc plant KEY NAME MARKER   (runner, outside: create them)
 *        proc_ipc attack KEY NAME SHMID [MQDIR]
 *        proc_ipc inspect KEY NAME        (runner, outside: their state)
 *        proc_ipc remove KEY NAME
 *
 * plant makes a shm segment holding MARKER, a message queue holding one
 * message MARKER, a one-semaphore set with value 7, all under KEY, and a
 * POSIX queue /NAME holding MARKER. attack tries to read and change each:
 * shmget+shmat (and shmat of the host's SHMID), msgget+msgrcv, semget+
 * semctl(SETVAL 99), mq_open+mq_receive of /NAME, and the queue NAME-path
 * opened by path in MQDIR (an mqueue file system of the host's IPC namespace
 * mounted there): two queues, so that one attempt cannot drain the other's.
 * inspect prints "STATE shm=... msgs=N sem=V mq=N mqpath=N": the runner compares it
 * with what plant left, so the evidence is the host's objects themselves.
 */
#include "probe.h"

#include <fcntl.h>
#include <mqueue.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>

struct msg {
	long type;
	char text[128];
};

union semun {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
};

static int plant(key_t key, const char *name, const char *marker)
{
	int shm = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0600);
	if (shm < 0)
		return perror("shmget"), 1;
	char *p = shmat(shm, NULL, 0);
	if (p == (void *)-1)
		return perror("shmat"), 1;
	snprintf(p, 4096, "%s/shm", marker);
	shmdt(p);
	int q = msgget(key, IPC_CREAT | IPC_EXCL | 0600);
	struct msg m = { 1, "" };
	snprintf(m.text, sizeof m.text, "%s/msg", marker);
	if (q < 0 || msgsnd(q, &m, strlen(m.text) + 1, 0) < 0)
		return perror("msgget/msgsnd"), 1;
	int sem = semget(key, 1, IPC_CREAT | IPC_EXCL | 0600);
	if (sem < 0 || semctl(sem, 0, SETVAL, (union semun){ .val = 7 }) < 0)
		return perror("semget/semctl"), 1;
	struct mq_attr attr = { .mq_maxmsg = 4, .mq_msgsize = 128 };
	char qname[256], text[128];
	snprintf(qname, sizeof qname, "/%s", name);
	mqd_t mq = mq_open(qname, O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
	snprintf(text, sizeof text, "%s/mqueue", marker);
	if (mq == (mqd_t)-1 || mq_send(mq, text, strlen(text) + 1, 0) < 0)
		return perror("mq_open/mq_send"), 1;
	mq_close(mq);
	snprintf(qname, sizeof qname, "/%s-path", name);
	mq = mq_open(qname, O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
	if (mq == (mqd_t)-1 || mq_send(mq, text, strlen(text) + 1, 0) < 0)
		return perror("mq_open/mq_send"), 1;
	mq_close(mq);
	printf("PLANTED %d %d %d\n", shm, q, sem);
	return 0;
}

static void attack_shm(const char *name, int shm)
{
	char *p = shm < 0 ? (void *)-1 : shmat(shm, NULL, 0);
	int err = errno;
	probe_report(name, p == (void *)-1 ? -1 : 0, err);
	if (p == (void *)-1)
		return;
	dprintf(STDOUT_FILENO, "READ %s %.100s\n", name, p);
	memcpy(p, "PWNED", 6);
	shmdt(p);
}

static void attack_mq(const char *name, mqd_t mq, int err)
{
	if (mq == (mqd_t)-1) {
		probe_fail(name, err);
		return;
	}
	char buf[8192];
	struct timespec ts = { 0, 0 };
	ssize_t n = mq_timedreceive(mq, buf, sizeof buf, NULL, &ts);
	err = errno;
	probe_report(name, n, err);
	if (n > 0)
		dprintf(STDOUT_FILENO, "READ %s %.100s\n", name, buf);
	mq_close(mq);
}

static int attack(key_t key, const char *name, int host_shmid, const char *mqdir)
{
	int shm = shmget(key, 0, 0);
	int err = errno;
	if (shm < 0)
		probe_fail("shm-by-key", err);
	else
		attack_shm("shm-by-key", shm);
	attack_shm("shm-by-id", host_shmid);

	int q = msgget(key, 0);
	err = errno;
	if (q < 0) {
		probe_fail("msg-by-key", err);
	} else {
		struct msg m;
		ssize_t n = msgrcv(q, &m, sizeof m.text, 0, IPC_NOWAIT);
		err = errno;
		probe_report("msg-by-key", n, err);
		if (n > 0)
			dprintf(STDOUT_FILENO, "READ msg-by-key %.100s\n", m.text);
	}

	int sem = semget(key, 1, 0);
	err = errno;
	if (sem < 0)
		probe_fail("sem-by-key", err);
	else
		PROBE_TRY("sem-by-key", semctl(sem, 0, SETVAL, (union semun){ .val = 99 }));

	char path[4096];
	snprintf(path, sizeof path, "/%s", name);
	mqd_t mq = mq_open(path, O_RDWR);
	attack_mq("mq_open", mq, errno);
	if (mqdir) {
		/* Files of an mqueue file system are queues: read(2) shows
		 * their state, mq_timedreceive() works on the fd (mq_overview(7)). */
		snprintf(path, sizeof path, "%s/%s-path", mqdir, name);
		/* Receiving needs only FMODE_READ (do_mq_timedreceive). */
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		attack_mq("mqueue-path", (mqd_t)fd, errno);
	}
	return 0;
}

static int inspect(key_t key, const char *name)
{
	char shmtext[64] = "?";
	int shm = shmget(key, 0, 0);
	char *p = shm < 0 ? (void *)-1 : shmat(shm, NULL, SHM_RDONLY);
	if (p != (void *)-1) {
		snprintf(shmtext, sizeof shmtext, "%.40s", p);
		for (char *c = shmtext; *c; c++)
			if (*c == ' ')
				*c = '_';
		shmdt(p);
	}
	long msgs = -1;
	int q = msgget(key, 0);
	struct msqid_ds ds;
	if (q >= 0 && msgctl(q, IPC_STAT, &ds) == 0)
		msgs = (long)ds.msg_qnum;
	int sem = semget(key, 1, 0);
	int val = sem < 0 ? -1 : semctl(sem, 0, GETVAL);
	char qname[256];
	snprintf(qname, sizeof qname, "/%s", name);
	long mqn = -1;
	mqd_t mq = mq_open(qname, O_RDONLY);
	struct mq_attr attr;
	if (mq != (mqd_t)-1 && mq_getattr(mq, &attr) == 0)
		mqn = attr.mq_curmsgs;
	long mqp = -1;
	snprintf(qname, sizeof qname, "/%s-path", name);
	mq = mq_open(qname, O_RDONLY);
	if (mq != (mqd_t)-1 && mq_getattr(mq, &attr) == 0)
		mqp = attr.mq_curmsgs;
	printf("STATE shm=%s msgs=%ld sem=%d mq=%ld mqpath=%ld\n", shmtext, msgs, val, mqn, mqp);
	return 0;
}

static int remove_all(key_t key, const char *name)
{
	int id;
	if ((id = shmget(key, 0, 0)) >= 0)
		shmctl(id, IPC_RMID, NULL);
	if ((id = msgget(key, 0)) >= 0)
		msgctl(id, IPC_RMID, NULL);
	if ((id = semget(key, 1, 0)) >= 0)
		semctl(id, 0, IPC_RMID);
	char qname[256];
	snprintf(qname, sizeof qname, "/%s", name);
	mq_unlink(qname);
	snprintf(qname, sizeof qname, "/%s-path", name);
	mq_unlink(qname);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	key_t key = (key_t)strtol(argv[2], NULL, 0);
	if (strcmp(argv[1], "plant") == 0 && argc >= 5)
		return plant(key, argv[3], argv[4]);
	if (strcmp(argv[1], "inspect") == 0)
		return inspect(key, argv[3]);
	if (strcmp(argv[1], "remove") == 0)
		return remove_all(key, argv[3]);
	if (strcmp(argv[1], "attack") == 0 && argc >= 5) {
		probe_started();
		return attack(key, argv[3], atoi(argv[4]), argc > 5 ? argv[5] : NULL);
	}
	return 2;
}
