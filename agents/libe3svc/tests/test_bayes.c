/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bayes against the hand-computed example of Manning, Raghavan, Schütze, "Introduction to
 * Information Retrieval", Example 13.1.
 *
 * Training: china: "Chinese Beijing Chinese", "Chinese Chinese Shanghai", "Chinese Macao";
 *           japan: "Tokyo Japan Chinese".
 * V = {chinese, beijing, shanghai, macao, tokyo, japan}, |V| = 6; words(china) = 8, words(japan) = 3.
 * alpha = 1:
 *   P(china) = 3/4, P(chinese|china) = (5+1)/(8+6) = 3/7, P(tokyo|china) = P(japan|china) = 1/14
 *   P(japan) = 1/4, P(chinese|japan) = (1+1)/(3+6) = 2/9, P(tokyo|japan) = P(japan|japan) = 2/9
 *   "Chinese Chinese Chinese Tokyo Japan":
 *     china: ln(3/4) + 3 ln(3/7) + 2 ln(1/14) = -0.287682 - 2.541894 - 5.278115 = -8.107690 (wins)
 *     japan: ln(1/4) + 5 ln(2/9)             = -1.386294 - 7.520387            = -8.906681
 *   "Tokyo Japan":  china: ln(3/4) + 2 ln(1/14) = -5.565797; japan: ln(1/4) + 2 ln(2/9) = -4.394449 (wins)
 *   "Paris": no vocabulary word, the priors decide: china, ln(3/4) = -0.287682
 * alpha = 0.5: P(chinese|china) = 5.5/11 = 0.5, P(tokyo|china) = 0.5/11; every japan word 1.5/6 = 0.25
 *   "Chinese Chinese Chinese Tokyo Japan":
 *     china: ln(3/4) + 3 ln(0.5) + 2 ln(0.5/11) = -8.549209; japan: ln(1/4) + 5 ln(0.25) = -8.317766 (wins)
 */
#include "check.h"
#include "e3svc/svc.h"

extern const svc_type svc_bayes;

static void expect(svc_instance *s, const char *req, const char *want) {
    svc_buf r = {0};
    char err[SVC_ERRBUF_LEN];
    CHECK_EQ_INT(svc_bayes.handle(s, (const uint8_t *)req, strlen(req), &r, err), SVC_OK);
    if (r.len != strlen(want) || memcmp(r.data, want, r.len) != 0) {
        fprintf(stderr, "request %s: got '%.*s' want '%s'\n", req, (int)r.len, (const char *)r.data, want);
        exit(1);
    }
    svc_buf_free(&r);
}

#define TRAIN                                                                                      \
    "train=china:Chinese Beijing Chinese|china:Chinese Chinese Shanghai|china: Chinese Macao|" \
    "japan:Tokyo Japan Chinese"

int main(void) {
    char err[SVC_ERRBUF_LEN];
    svc_instance *s;
    CHECK_EQ_INT(svc_bayes.stateful, 0);
    CHECK_EQ_INT(svc_bayes.create(TRAIN, NULL, &s, err), SVC_OK);
    expect(s, "Chinese Chinese Chinese Tokyo Japan", "china -8.107690\n");
    expect(s, "tokyo, JAPAN!\n", "japan -4.394449\n");
    expect(s, "Paris", "china -0.287682\n");
    expect(s, "", "china -0.287682\n");
    svc_buf r = {0};
    CHECK_EQ_INT(svc_bayes.export_state(s, &r, err), SVC_OK);
    CHECK_EQ_INT(r.len, 0);
    CHECK_EQ_INT(svc_bayes.import_state(s, (const uint8_t *)"x", 1, err), SVC_ERR);
    svc_bayes.destroy(s);

    CHECK_EQ_INT(svc_bayes.create("alpha=0.5;" TRAIN, NULL, &s, err), SVC_OK);
    expect(s, "Chinese Chinese Chinese Tokyo Japan", "japan -8.317766\n");
    svc_bayes.destroy(s);

    CHECK_EQ_INT(svc_bayes.create("", NULL, &s, err), SVC_ERR);
    CHECK_EQ_INT(svc_bayes.create("train=no class here", NULL, &s, err), SVC_ERR);
    CHECK_EQ_INT(svc_bayes.create("train=:text", NULL, &s, err), SVC_ERR);
    CHECK_EQ_INT(svc_bayes.create("alpha=0;train=a:x", NULL, &s, err), SVC_ERR);
    return 0;
}
